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

  publish(event: CallEvent): void {
    this.#bus.publish(subjects.callEvents(this.#callId), callCodecs.event.encode(event));
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
