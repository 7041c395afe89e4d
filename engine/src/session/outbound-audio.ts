/**
 * A call's agent audio on its way out: frames queued by the speaking turn, handed to the transport one per tick of
 * the process's shared 20 ms clock. Marks ride in the queue between frames; a mark is reported when every frame
 * before it has gone out, which is how the session knows what the caller has actually heard.
 */
import type { MediaTransport } from '../transports/media-transport.ts';

/**
 * Frames the queue holds: 60 s of speech. TTS runs faster than real time, so a long reply queues ahead; past this
 * the oldest frames are dropped (and counted) rather than the process's memory growing without end.
 */
export const OUTBOUND_MAX_FRAMES = 3_000;

type Item = { kind: 'frame'; samples: Int16Array; tag: string } | { kind: 'mark'; name: string };

export interface OutboundEvents {
  /** A frame tagged `tag` went out (counts how much of each clause was played). */
  frameSent(tag: string): void;
  /** Everything before the mark went out. */
  markReached(name: string): void;
  /** The queue ran empty after playing something. */
  drained(): void;
}

export class OutboundAudio {
  readonly #transport: MediaTransport;
  readonly #events: OutboundEvents;
  readonly #items: Item[] = [];
  #frames = 0;
  #dropped = 0;
  #sentSinceDrain = false;
  /** Frames handed to the transport since the call began. */
  sent = 0;

  constructor(transport: MediaTransport, events: OutboundEvents) {
    this.#transport = transport;
    this.#events = events;
  }

  get queuedFrames(): number {
    return this.#frames;
  }

  get dropped(): number {
    return this.#dropped;
  }

  enqueue(samples: Int16Array, tag: string): void {
    if (this.#frames >= OUTBOUND_MAX_FRAMES) {
      const oldest = this.#items.findIndex((item) => item.kind === 'frame');
      this.#items.splice(oldest, 1);
      this.#frames -= 1;
      this.#dropped += 1;
    }
    this.#items.push({ kind: 'frame', samples, tag });
    this.#frames += 1;
  }

  mark(name: string): void {
    this.#items.push({ kind: 'mark', name });
  }

  /** Drops everything queued (barge-in) and tells the far end to drop what it buffered. */
  clear(): void {
    this.#items.length = 0;
    this.#frames = 0;
    this.#transport.clear();
  }

  /** One clock tick: sends the next frame, reporting the marks passed on the way. */
  tick(): void {
    while (this.#items.length > 0) {
      const item = this.#items.shift()!;
      if (item.kind === 'mark') {
        this.#events.markReached(item.name);
        continue;
      }
      this.#frames -= 1;
      this.sent += 1;
      this.#sentSinceDrain = true;
      this.#transport.send(item.samples);
      this.#events.frameSent(item.tag);
      this.#flushTrailingMarks();
      return;
    }
    if (this.#sentSinceDrain) {
      this.#sentSinceDrain = false;
      this.#events.drained();
    }
  }

  /** Marks right behind the last frame are reached as soon as it leaves, not a tick later. */
  #flushTrailingMarks(): void {
    while (this.#items[0]?.kind === 'mark') {
      const item = this.#items.shift() as { kind: 'mark'; name: string };
      this.#events.markReached(item.name);
    }
  }
}
