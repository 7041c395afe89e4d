/**
 * Speech and language providers of fixed latency, implementing the engine's public provider interfaces, so that
 * whatever a turn takes beyond their fixed delays is the engine's own time. Each stamps what it did in a StampBook.
 *
 * - STT: a final transcript exactly `sttFinalMs` after the end of utterance (batch, like pocketsphinx or an
 *   OpenAI-style transcription), or `sttFinalMs` after the last voiced audio it heard (streaming, like Deepgram).
 * - LLM: the first token after `llmFirstTokenMs`, and that token completes the reply's first clause (the clause
 *   chunker cuts it at once), so "time to first clause" is the fixed delay too; then a token every
 *   `llmTokenIntervalMs`.
 * - TTS: the first audio after `ttsFirstByteMs`, then the rest faster than real time: real PCM (a 16 kHz voice-like
 *   tone, as flite's kal16 voice would send), ~`TTS_MS_PER_CHAR` of audio per character.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { LlmEvent, LlmProvider, SttEvent, SttProvider, SttStream, TtsProvider } from '@parley/engine';
import { sineWave, type AudioChunk } from '@parley/engine/audio';
import { AsyncQueue } from './async-queue.ts';
import { turnKey, turnKeyIn, type StampBook } from './turn-stamps.ts';

/** The providers' fixed delays, ms. */
export interface FixedLatencies {
  sttFinalMs: number;
  llmFirstTokenMs: number;
  llmTokenIntervalMs: number;
  ttsFirstByteMs: number;
}

/** A fast cloud STT's final, a fast LLM's first token, a fast TTS's first byte: delays large next to the engine's. */
export const DEFAULT_LATENCIES: FixedLatencies = {
  sttFinalMs: 100,
  llmFirstTokenMs: 200,
  llmTokenIntervalMs: 20,
  ttsFirstByteMs: 80,
};

export type SttMode = 'batch' | 'streaming';

/** The TTS voice's sample rate, Hz: the engine's own rate, as flite's kal16 voice sends. */
export const TTS_SAMPLE_RATE = 16_000;
/** Audio per character of text, ms: about a normal speaking rate (15 characters per second). */
export const TTS_MS_PER_CHAR = 65;
/** Samples per TTS chunk: 100 ms, the size streaming TTS vendors send. */
const TTS_CHUNK_SAMPLES = 1_600;
/** Pause between TTS chunks, ms: 100 ms of audio every 20 ms is 5× real time, as a fast vendor streams. */
const TTS_CHUNK_INTERVAL_MS = 20;
/** A frame with a sample beyond this is voiced: the callers' speech peaks near 8 000, their line noise near 30. */
const VOICED_PEAK = 1_000;
/** Finals one STT stream holds unread: the session reads each at once; 16 is far beyond any backlog. */
const STT_QUEUE_CAPACITY = 16;

/** What the reply says after its first clause (~1 s of audio), one token per word: a second clause of ~2.8 s. */
const REPLY_REST = ['the ', 'answer ', 'is ', 'yes, ', 'and ', 'that ', 'is ', 'all ', 'for ', 'now.'];

/**
 * The TTS voice: 100 ms of 200 Hz with two overtones at about −12 dBFS. Every partial is a multiple of 10 Hz, so
 * the chunk holds whole periods and chunks join without a click; one chunk, made once, serves every request.
 */
const TONE_CHUNK: Int16Array = (() => {
  const parts = [
    sineWave(200, TTS_SAMPLE_RATE, TTS_CHUNK_SAMPLES, 5_000),
    sineWave(600, TTS_SAMPLE_RATE, TTS_CHUNK_SAMPLES, 2_500),
    sineWave(1_400, TTS_SAMPLE_RATE, TTS_CHUNK_SAMPLES, 1_000),
  ];
  return Int16Array.from({ length: TTS_CHUNK_SAMPLES }, (_, i) => parts[0]![i]! + parts[1]![i]! + parts[2]![i]!);
})();

/** Waits `ms`; false when `signal` aborted first. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

function voiced(samples: Int16Array): boolean {
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i]!;
    if (s > VOICED_PEAK || s < -VOICED_PEAK) return true;
  }
  return false;
}

export function fixedLatencyStt(latencies: FixedLatencies, mode: SttMode, book: StampBook): SttProvider {
  let streams = 0;
  return {
    name: 'bench-stt',
    open(_options, signal): SttStream {
      const stream = ++streams;
      const events = new AsyncQueue<SttEvent>(STT_QUEUE_CAPACITY);
      let utterances = 0;
      /** Samples heard on this stream; 16 per ms. */
      let heard = 0;
      let utteranceStart: number | undefined;
      let utteranceEnd = 0;
      let lastVoicedAt = 0;
      let timer: NodeJS.Timeout | undefined;

      const emit = () => {
        timer = undefined;
        if (utteranceStart === undefined) return;
        const key = turnKey(stream, ++utterances);
        const startMs = utteranceStart / 16;
        utteranceStart = undefined;
        book.of(key).sttFinalAt = performance.now();
        events.push({ type: 'final', text: `the caller says ${key}`, startMs, endMs: utteranceEnd / 16 });
      };
      // Streaming: the final comes `sttFinalMs` after the last voiced audio, re-armed while the caller talks.
      const settle = () => {
        const wait = lastVoicedAt + latencies.sttFinalMs - performance.now();
        if (wait > 0.5) timer = setTimeout(settle, wait);
        else emit();
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
          if (voiced(samples)) {
            utteranceStart ??= heard;
            utteranceEnd = heard + samples.length;
            lastVoicedAt = performance.now();
            if (mode === 'streaming' && timer === undefined) timer = setTimeout(settle, latencies.sttFinalMs);
          }
          heard += samples.length;
        },
        endOfUtterance() {
          if (mode !== 'batch' || utteranceStart === undefined || timer !== undefined) return;
          timer = setTimeout(emit, latencies.sttFinalMs);
        },
        end() {
          clearTimeout(timer);
          events.end();
        },
        [Symbol.asyncIterator]: () => events[Symbol.asyncIterator](),
      };
    },
  };
}

export function fixedLatencyLlm(latencies: FixedLatencies, book: StampBook): LlmProvider {
  return {
    name: 'bench-llm',
    async *stream(request, signal): AsyncIterable<LlmEvent> {
      const receivedAt = performance.now();
      const lastUser = request.messages.findLast((m) => m.role === 'user');
      const key = lastUser ? turnKeyIn(lastUser.content) : undefined;
      const stamps = key ? book.of(key) : undefined;
      if (stamps) stamps.llmRequestAt = receivedAt;
      if (!(await pause(latencies.llmFirstTokenMs, signal))) return;
      // Long enough (≥ 12 characters) and followed by a space: the first clause is complete with this token.
      if (stamps) stamps.llmFirstClauseAt = performance.now();
      yield { type: 'token', text: `Reply ${key ?? 'to you'} now, ` };
      for (const word of REPLY_REST) {
        if (!(await pause(latencies.llmTokenIntervalMs, signal))) return;
        yield { type: 'token', text: word };
      }
      yield { type: 'done', finishReason: 'stop' };
    },
  };
}

export function fixedLatencyTts(latencies: FixedLatencies, book: StampBook): TtsProvider {
  return {
    name: 'bench-tts',
    async *synthesize(request, signal): AsyncIterable<AudioChunk> {
      const receivedAt = performance.now();
      const key = turnKeyIn(request.text);
      const stamps = key ? book.of(key) : undefined;
      if (stamps) stamps.ttsRequestAt ??= receivedAt;
      if (!(await pause(latencies.ttsFirstByteMs, signal))) return;
      let left = Math.round(request.text.length * TTS_MS_PER_CHAR * (TTS_SAMPLE_RATE / 1000));
      if (stamps) stamps.ttsFirstAudioAt ??= performance.now();
      while (left > 0) {
        const length = Math.min(left, TTS_CHUNK_SAMPLES);
        yield {
          samples: length === TTS_CHUNK_SAMPLES ? TONE_CHUNK : TONE_CHUNK.subarray(0, length),
          sampleRate: TTS_SAMPLE_RATE,
        };
        left -= length;
        if (left > 0 && !(await pause(TTS_CHUNK_INTERVAL_MS, signal))) return;
      }
    },
    voices: async () => [{ id: 'tone', name: 'Tone', language: 'en' }],
  };
}
