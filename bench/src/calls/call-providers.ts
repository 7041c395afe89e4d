/**
 * The load test's speech and language providers: the engine suite's fixed-latency fakes (fixed-latency-providers.ts),
 * set to the latencies, with two adjustments made by wrapping them rather than copying them:
 *
 * - LLM: the fake's reply is a first token and 10 more; REPLY_EXTRA_TOKENS more (a third clause) make it the first
 *   token then 15 at `llmTokenIntervalMs`.
 * - TTS: the fake streams 5× faster than real time; here its audio is handed on at real-time rate, TTS_LEAD_MS
 *   ahead of playback (one 100 ms chunk), as a vendor streaming at real time with a small look-ahead does. With no
 *   lead at all, the fake's own timer lateness would show as gaps in the agent's audio.
 *
 * STT is the fake's streaming mode: its final comes `sttFinalMs` after the last voiced audio it heard.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { LlmEvent, LlmProvider, TtsProvider } from '@parley/engine';
import type { AudioChunk } from '@parley/engine/audio';
import {
  fixedLatencyLlm,
  fixedLatencyStt,
  fixedLatencyTts,
  type FixedLatencies,
} from '../engine/fixed-latency-providers.ts';
import { StampBook, type TurnStamps } from '../engine/turn-stamps.ts';

/** The fake providers: STT final 200 ms after the end of speech, LLM first token 150 ms then a token every 40 ms, TTS first byte 80 ms. */
export const CALL_LATENCIES: FixedLatencies = {
  sttFinalMs: 200,
  llmFirstTokenMs: 150,
  llmTokenIntervalMs: 40,
  ttsFirstByteMs: 80,
};
/** What each reply waits for the providers, ms: the STT final, the LLM's first token (its first clause), the TTS's first byte. */
export function providerMs(latencies: FixedLatencies): number {
  return latencies.sttFinalMs + latencies.llmFirstTokenMs + latencies.ttsFirstByteMs;
}
/** Added to each reply after the fake's own 10 tokens: a third clause, making 15 after the first. */
export const REPLY_EXTRA_TOKENS = ['Is ', 'there ', 'anything ', 'else ', 'today?'];
/** How far the TTS's audio runs ahead of real time, ms: one 100 ms chunk. */
export const TTS_LEAD_MS = 100;

/** Lateness samples kept per provider, at most (a run of 1 000 calls for a minute has about 20 000 turns). */
const MAX_LATENESS_SAMPLES = 50_000;

/**
 * The fakes stamp each turn in a StampBook (the engine suite's breakdown). Here no stamp is kept (a run of minutes
 * would only grow the book); each is read as it is written, for how late the fake's own timer fired: the LLM's
 * first clause past `llmFirstTokenMs` after its request, the TTS's first audio past `ttsFirstByteMs`. The fakes
 * share the engine's event loop, so a busy engine delays them: that lateness is reported, not hidden.
 */
export class LatenessBook extends StampBook {
  readonly llmLateMs: number[] = [];
  readonly ttsLateMs: number[] = [];
  readonly #latencies: FixedLatencies;

  constructor(latencies: FixedLatencies) {
    super();
    this.#latencies = latencies;
  }

  override of(): TurnStamps {
    return new Proxy<TurnStamps>(
      {},
      {
        set: (stamps, field, value: number) => {
          if (field === 'llmFirstClauseAt' && stamps.llmRequestAt !== undefined)
            this.#note(this.llmLateMs, value - stamps.llmRequestAt - this.#latencies.llmFirstTokenMs);
          if (field === 'ttsFirstAudioAt' && stamps.ttsRequestAt !== undefined)
            this.#note(this.ttsLateMs, value - stamps.ttsRequestAt - this.#latencies.ttsFirstByteMs);
          (stamps as Record<string | symbol, number>)[field] = value;
          return true;
        },
      },
    );
  }

  #note(samples: number[], ms: number): void {
    if (samples.length < MAX_LATENESS_SAMPLES) samples.push(ms);
  }
}

export function callProviders(latencies: FixedLatencies = CALL_LATENCIES) {
  const book = new LatenessBook(latencies);
  return {
    book,
    stt: fixedLatencyStt(latencies, 'streaming', book),
    llm: withExtraTokens(fixedLatencyLlm(latencies, book), REPLY_EXTRA_TOKENS, latencies.llmTokenIntervalMs),
    tts: atRealTime(fixedLatencyTts(latencies, book), TTS_LEAD_MS),
  };
}

/** `inner`, with `tokens` streamed `intervalMs` apart before its `done`. */
export function withExtraTokens(inner: LlmProvider, tokens: readonly string[], intervalMs: number): LlmProvider {
  return {
    name: inner.name,
    async *stream(request, signal): AsyncIterable<LlmEvent> {
      for await (const event of inner.stream(request, signal)) {
        if (event.type === 'done') {
          for (const text of tokens) {
            try {
              await sleep(intervalMs, undefined, { signal });
            } catch {
              return;
            }
            yield { type: 'token', text };
          }
        }
        yield event;
      }
    },
  };
}

/**
 * `inner`'s audio handed on no faster than real time: after the first chunk (at `inner`'s first-byte delay), each
 * chunk leaves when the audio before it, less `leadMs`, would have played.
 */
export function atRealTime(inner: TtsProvider, leadMs: number): TtsProvider {
  return {
    name: inner.name,
    voices: () => inner.voices(),
    async *synthesize(request, signal): AsyncIterable<AudioChunk> {
      let firstAt: number | undefined;
      let audioMs = 0;
      for await (const chunk of inner.synthesize(request, signal)) {
        firstAt ??= performance.now();
        const wait = firstAt + audioMs - leadMs - performance.now();
        if (wait > 0) {
          try {
            await sleep(wait, undefined, { signal });
          } catch {
            return;
          }
        }
        yield chunk;
        audioMs += (chunk.samples.length * 1000) / chunk.sampleRate;
      }
    },
  };
}
