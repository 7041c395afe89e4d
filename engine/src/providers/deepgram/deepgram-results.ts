/**
 * Deepgram `Results` messages as SttEvents. Deepgram settles speech in segments: each `is_final` result is final
 * for its stretch of audio, and `speech_final` (its endpointing) or `from_finalize` (our Finalize) marks the end of
 * the utterance. As Deepgram's documentation advises, the segments are joined until then, so one utterance gives
 * one final — the same contract as the batch providers — and each partial shows the utterance so far (the settled
 * segments plus the interim guess at the current one).
 */
import type { SttEvent } from '../stt-provider.ts';

/** The fields of a `Results` message this provider reads (Deepgram's live streaming response). */
export interface DeepgramResults {
  type: 'Results';
  /** Offset of this result's audio from the start of the stream, in seconds. */
  start?: number;
  /** Length of this result's audio, in seconds. */
  duration?: number;
  is_final?: boolean;
  speech_final?: boolean;
  from_finalize?: boolean;
  channel?: { alternatives?: { transcript?: string; confidence?: number }[] };
}

interface Segment {
  text: string;
  startMs: number;
  endMs: number;
  confidence: number | undefined;
}

export class UtteranceAssembler {
  #segments: Segment[] = [];

  /** The events one `Results` message yields: nothing, a partial, or a final. */
  take(results: DeepgramResults): SttEvent[] {
    const alternative = results.channel?.alternatives?.[0];
    const text = (alternative?.transcript ?? '').trim();
    if (results.is_final !== true) {
      if (text === '') return [];
      return [{ type: 'partial', text: [...this.#segments.map((s) => s.text), text].join(' ') }];
    }
    if (text !== '') {
      const startMs = Math.round((results.start ?? 0) * 1000);
      this.#segments.push({
        text,
        startMs,
        endMs: startMs + Math.round((results.duration ?? 0) * 1000),
        confidence: alternative?.confidence,
      });
    }
    return results.speech_final === true || results.from_finalize === true ? this.flush() : [];
  }

  /** The utterance settled so far as a final (at the end of the stream: whatever Deepgram settled). */
  flush(): SttEvent[] {
    const segments = this.#segments;
    this.#segments = [];
    const first = segments[0];
    const last = segments.at(-1);
    if (first === undefined || last === undefined) return [];
    const confidences = segments.flatMap((s) => (s.confidence === undefined ? [] : [s.confidence]));
    return [
      {
        type: 'final',
        text: segments.map((s) => s.text).join(' '),
        startMs: first.startMs,
        endMs: last.endMs,
        // The weakest segment: one misheard stretch makes the utterance doubtful.
        ...(confidences.length === 0 ? {} : { confidence: Math.min(...confidences) }),
      },
    ];
  }
}
