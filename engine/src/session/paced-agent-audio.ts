/**
 * A call's agent audio on its way out, over the audio module's PacedOutput: frames are handed to the transport
 * one per tick of the process's shared PacingClock. Producers wait for room (backpressure) instead of queueing a
 * whole reply, so a barge-in has at most a second of audio to drop. Each frame carries the tag of the line or
 * clause it belongs to, which is how the session knows what the caller has actually heard.
 *
 * A pause (caller speech over the agent, before it is known to be a barge-in) holds the queue, tells the far end to
 * drop what it buffered, and puts the last PAUSE_REWIND_FRAMES sent back in front, uncounted: resumed, the caller
 * hears the agent pick up a little before where it stopped, and loses nothing.
 */
import { PacedOutput } from '../audio/paced-output.ts';
import type { ClockOutput } from '../audio/pacing-clock.ts';
import type { MediaTransport } from '../transports/media-transport.ts';
import type { SpeechHandle } from './speech-handle.ts';

/**
 * Frames sent that a pause replays, 200 ms: more than a carrier's jitter buffer holds of paced audio (40–100 ms), and
 * the syllable cut in half is said again, as a person picks up a word they broke off.
 */
export const PAUSE_REWIND_FRAMES = 10;

interface TaggedFrame {
  samples: Int16Array;
  tag: string;
  /** The utterance the frame is part of: it learns when its audio went out. */
  speech: SpeechHandle;
}

export interface PacedAgentAudioEvents {
  /** A frame tagged `tag` went out (counts how much of each clause was played; the recorder keeps it). */
  frameSent(tag: string, samples: Int16Array): void;
  /** A frame tagged `tag` that was sent will be sent again (a pause put it back): it does not count as played. */
  frameUnsent(tag: string): void;
  /** Everything before the mark went out: the transport has the mark too, and reports when the far end played it. */
  markReached(name: string): void;
  /** The queue ran empty. */
  drained(): void;
}

export class PacedAgentAudio implements ClockOutput {
  readonly #transport: MediaTransport;
  readonly #events: PacedAgentAudioEvents;
  readonly #output: PacedOutput<TaggedFrame>;
  /** Audio went out since the queue was last found empty. */
  #sentSinceDrained = false;

  constructor(transport: MediaTransport, events: PacedAgentAudioEvents) {
    this.#transport = transport;
    this.#events = events;
    this.#output = new PacedOutput<TaggedFrame>({
      send: (frame) => {
        this.#sentSinceDrained = true;
        transport.send(frame.samples);
        frame.speech.frameSent(frame.samples.length);
        events.frameSent(frame.tag, frame.samples);
      },
      onMark: (name, outcome) => {
        if (outcome !== 'played') return;
        // Behind the clause's last frame: a far end that buffers echoes it once the clause has really played.
        transport.mark(name);
        events.markReached(name);
      },
      // A reply's first frame leaves as soon as it exists when the line was quiet, not at the next tick.
      startImmediately: true,
      rewindFrames: PAUSE_REWIND_FRAMES,
    });
  }

  get queuedFrames(): number {
    return this.#output.queued;
  }

  /** Frames handed to the transport since the call began. */
  get sent(): number {
    return this.#output.played;
  }

  /** Queues a frame of `speech` once there is room; rejects when `signal` aborts or the output closes. */
  async enqueue(samples: Int16Array, tag: string, speech: SpeechHandle, signal: AbortSignal): Promise<void> {
    await this.#output.waitForRoom(1, signal);
    speech.frameQueued();
    this.#output.enqueue({ samples, tag, speech });
  }

  mark(name: string): void {
    this.#output.mark(name);
  }

  /**
   * Drops everything queued (barge-in) and tells the far end to drop what it buffered; ends a pause. After a pause
   * the far end was cleared already and has been sent nothing since: one barge-in, one clear.
   */
  clear(): void {
    const held = this.#output.paused;
    this.#output.clear();
    if (!held) this.#transport.clear();
  }

  /** Held: nothing goes out until `resume()` or `clear()`. */
  get paused(): boolean {
    return this.#output.paused;
  }

  /** Holds the agent's audio now and tells the far end to drop what it buffered; what it may not have played goes back. */
  pause(): void {
    if (this.#output.paused) return;
    for (const frame of this.#output.pause()) {
      frame.speech.frameUnsent();
      this.#events.frameUnsent(frame.tag);
    }
    this.#transport.clear();
  }

  /** The agent's audio goes on from where the pause held it. */
  resume(): void {
    this.#output.resume();
  }

  // The PacingClock's view.
  get closed(): boolean {
    return this.#output.closed;
  }

  tick(): void {
    this.#output.tick();
    // Paused, an empty queue is not the end of the agent's line: what it says next is held, not finished.
    if (this.#sentSinceDrained && this.#output.queued === 0 && !this.#output.paused) {
      this.#sentSinceDrained = false;
      this.#events.drained();
    }
  }

  close(): void {
    this.#output.close();
  }
}
