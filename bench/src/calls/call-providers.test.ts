import { describe, expect, it } from 'vitest';
import type { LlmEvent, LlmProvider, TtsProvider } from '@parley/engine';
import type { StampBook } from '../engine/turn-stamps.ts';
import { atRealTime, CALL_LATENCIES, LatenessBook, providerMs, withExtraTokens } from './call-providers.ts';

describe('providerMs', () => {
  it('is the STT final, the LLM first token and the TTS first byte', () => {
    expect(providerMs(CALL_LATENCIES)).toBe(430);
  });
});

describe('withExtraTokens', () => {
  it("streams the extra tokens before the inner model's done", async () => {
    const inner: LlmProvider = {
      name: 'inner',
      async *stream() {
        yield { type: 'token', text: 'Hello ' };
        yield { type: 'done', finishReason: 'stop' };
      },
    };
    const events: LlmEvent[] = [];
    for await (const event of withExtraTokens(inner, ['a ', 'b'], 1).stream(
      { messages: [] } as never,
      new AbortController().signal,
    ))
      events.push(event);
    expect(events).toEqual([
      { type: 'token', text: 'Hello ' },
      { type: 'token', text: 'a ' },
      { type: 'token', text: 'b' },
      { type: 'done', finishReason: 'stop' },
    ]);
  });
});

describe('atRealTime', () => {
  it('hands each chunk on when the audio before it, less the lead, would have played', async () => {
    const chunk = { samples: new Int16Array(1_600), sampleRate: 16_000 }; // 100 ms
    const inner: TtsProvider = {
      name: 'inner',
      voices: async () => [],
      async *synthesize() {
        for (let i = 0; i < 4; i++) yield chunk;
      },
    };
    const times: number[] = [];
    const start = performance.now();
    for await (const _ of atRealTime(inner, 100).synthesize({ text: 'x' }, new AbortController().signal))
      times.push(performance.now() - start);
    // Chunks 0 and 1 at once (one chunk of lead), then one per 100 ms (a timer may fire a millisecond early).
    expect(times[1]!).toBeLessThan(50);
    expect(times[2]!).toBeGreaterThanOrEqual(95);
    expect(times[3]!).toBeGreaterThanOrEqual(195);
    expect(times[3]!).toBeLessThan(300);
  });
});

describe('LatenessBook', () => {
  it("notes how late the fakes' first clause and first audio came, and keeps the stamps writable", () => {
    const book = new LatenessBook(CALL_LATENCIES);
    // As the fakes see it.
    const stamps: StampBook = book;
    const llm = stamps.of('s1u1');
    llm.llmRequestAt = 1_000;
    llm.llmFirstClauseAt = 1_152.5;
    const tts = stamps.of('s1u1');
    tts.ttsRequestAt ??= 2_000;
    tts.ttsFirstAudioAt ??= 2_081;
    expect(book.llmLateMs).toEqual([2.5]);
    expect(book.ttsLateMs).toEqual([1]);
    expect(tts.ttsRequestAt).toBe(2_000);
  });
});
