/**
 * A call's events on the bus (`v1.call.<id>.event`) and the transcript kept for its summary: every line spoken is
 * published as it happens and remembered in order.
 */
import type { Bus } from '../bus/index.ts';
import { callCodecs, subjects, type CallEvent } from '../protocol/index.ts';

export interface TranscriptLine {
  speaker: 'user' | 'assistant';
  text: string;
}

export class CallEvents {
  readonly #bus: Bus;
  readonly #callId: string;
  readonly #lines: TranscriptLine[] = [];

  constructor(bus: Bus, callId: string) {
    this.#bus = bus;
    this.#callId = callId;
  }

  get transcript(): TranscriptLine[] {
    return [...this.#lines];
  }

  /**
   * Publishes `event`; a state change and the end carry the wall-clock time they happened, so the record's
   * answeredAt and endedAt are the call's own even when the event is stored late (docs/architecture.md §18).
   */
  publish(event: CallEvent): void {
    const stamped =
      (event.type === 'state' || event.type === 'ended') && event.atEpochMs === undefined
        ? { ...event, atEpochMs: Date.now() }
        : event;
    this.#bus.publish(subjects.callEvents(this.#callId), callCodecs.event.encode(stamped));
  }

  /** A transcript line: remembered and published. Offsets are ms from the call's start. */
  line(speaker: TranscriptLine['speaker'], text: string, startMs: number, endMs: number, interrupted = false): void {
    if (!text) return;
    this.#lines.push({ speaker, text });
    this.publish({
      type: 'transcript',
      speaker,
      text,
      startMs: Math.round(startMs),
      endMs: Math.round(endMs),
      ...(interrupted && { interrupted }),
    });
  }
}
