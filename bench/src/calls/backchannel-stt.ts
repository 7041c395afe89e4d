/**
 * The backchannel probe's recogniser (backchannel-probe.ts): a streaming fake, as the load test's, that sends no
 * interim words and its final `finalMs` after the last voiced audio. It cannot hear words, so it tells the probe's
 * two kinds of utterance apart by length: the caller's question (a sentence of seconds) and a backchannel (under
 * QUESTION_MIN_VOICED_MS of voice), which it reports as the next of BACKCHANNEL_WORDS — what a real recogniser
 * would write for "uh-huh", "okay", "yeah", "mm-hmm".
 */
import type { SttEvent, SttProvider, SttStream } from '@parley/engine';
import { AsyncQueue } from '../engine/async-queue.ts';

export const BACKCHANNEL_WORDS = ['uh-huh', 'okay', 'yeah', 'mm-hmm'] as const;
/** The question the probe's caller asks, as the fake writes it. */
export const PROBE_QUESTION = 'when will my washing machine be delivered';
/** Voice at least this long is the question, ms: flite's longest backchannel ("mm-hmm") has 0.9 s, the question 3.4 s. */
export const QUESTION_MIN_VOICED_MS = 1_500;
/** A frame with a sample beyond this is voiced, as for the load test's fake. */
const VOICED_PEAK = 1_000;
/** Finals one stream holds unread; the session reads each at once. */
const QUEUE_CAPACITY = 16;

export function backchannelStt(finalMs: number): SttProvider {
  return {
    name: 'bench-backchannel-stt',
    open(_options, signal): SttStream {
      const events = new AsyncQueue<SttEvent>(QUEUE_CAPACITY);
      let heardMs = 0;
      let voicedMs = 0;
      let startMs: number | undefined;
      let lastVoicedAt = 0;
      let timer: NodeJS.Timeout | undefined;
      let said = 0;
      const settle = () => {
        const wait = lastVoicedAt + finalMs - performance.now();
        if (wait > 0.5) {
          timer = setTimeout(settle, wait);
          return;
        }
        timer = undefined;
        const text =
          voicedMs >= QUESTION_MIN_VOICED_MS ? PROBE_QUESTION : BACKCHANNEL_WORDS[said++ % BACKCHANNEL_WORDS.length]!;
        events.push({ type: 'final', text, startMs: startMs ?? heardMs, endMs: heardMs });
        voicedMs = 0;
        startMs = undefined;
      };
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          events.end();
        },
        { once: true },
      );
      return {
        push(samples) {
          heardMs += samples.length / 16;
          let peak = 0;
          for (const s of samples) peak = Math.max(peak, Math.abs(s));
          if (peak <= VOICED_PEAK) return;
          startMs ??= heardMs;
          voicedMs += samples.length / 16;
          lastVoicedAt = performance.now();
          timer ??= setTimeout(settle, finalMs);
        },
        endOfUtterance() {},
        end: () => events.end(),
        [Symbol.asyncIterator]: () => events[Symbol.asyncIterator](),
      };
    },
  };
}
