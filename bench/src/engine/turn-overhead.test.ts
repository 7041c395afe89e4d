import { describe, expect, it } from 'vitest';
import { breakDown, summarize, type TurnRecord } from './turn-overhead.ts';
import { TickLog } from './tick-log.ts';
import { turnKey, turnKeyIn } from './turn-stamps.ts';

/** A batch-STT turn: last voiced frame at 1 000, turn over 700 ms later, LLM 200 ms, TTS 80 ms, frame out at 1 992. */
function record(overrides: Partial<TurnRecord> = {}): TurnRecord {
  return {
    report: {
      turn: 1,
      endpointingMs: 700,
      sttFinalMs: 699.8,
      llmFirstTokenMs: 201,
      ttsFirstByteMs: 80.6,
      endToEndMs: 992,
    },
    stamps: {
      lastVoicedAt: 1_000,
      sttFinalAt: 1_699.8,
      llmRequestAt: 1_700.5,
      llmFirstClauseAt: 1_900.7,
      ttsRequestAt: 1_901.2,
      ttsFirstAudioAt: 1_981.4,
      firstFrameAt: 1_992.1,
    },
    tickAfterAudioAt: 1_992,
    ...overrides,
  };
}

describe('breakDown', () => {
  it('takes end-to-end minus endpointing minus what the providers themselves took', () => {
    const b = breakDown(record());
    expect(b.providerLlmMs).toBeCloseTo(200.2);
    expect(b.providerTtsMs).toBeCloseTo(80.2);
    expect(b.overheadMs).toBeCloseTo(992 - 700 - 200.2 - 80.2);
  });

  it('cuts the same span into hops between stamps, and the wait for the next pacing tick', () => {
    const b = breakDown(record());
    expect(b.turnToLlmMs).toBeCloseTo(0.5);
    expect(b.clauseToTtsMs).toBeCloseTo(0.5);
    expect(b.audioToFrameMs).toBeCloseTo(10.7);
    expect(b.pacingWaitMs).toBeCloseTo(10.6);
    expect(b.callerEndToEndMs).toBeCloseTo(992.1);
    expect(b.turnToLlmMs + b.clauseToTtsMs + b.audioToFrameMs).toBeCloseTo(
      b.callerEndToEndMs - b.endpointingMs - b.providerLlmMs - b.providerTtsMs,
    );
  });

  it('gives NaN, not a made-up number, where a stamp or a report field is missing', () => {
    const b = breakDown(
      record({ report: { turn: 1, endpointingMs: 700 }, stamps: { lastVoicedAt: 1_000 }, tickAfterAudioAt: undefined }),
    );
    expect(b.overheadMs).toBeNaN();
    expect(b.sttFinalMs).toBeNaN();
    expect(b.turnToLlmMs).toBeNaN();
    expect(b.pacingWaitMs).toBeNaN();
    expect(b.endpointingMs).toBe(700);
  });
});

describe('summarize', () => {
  it('gives nearest-rank percentiles over the finite values only', () => {
    const s = summarize([5, Number.NaN, 1, 4, 2, 3]);
    expect(s).toEqual({ n: 5, mean: 3, p50: 3, p99: 5, max: 5 });
  });

  it('makes the p99 of 20 samples the slowest one', () => {
    expect(summarize(Array.from({ length: 20 }, (_, i) => i + 1)).p99).toBe(20);
    expect(summarize(Array.from({ length: 200 }, (_, i) => i + 1)).p99).toBe(198);
  });

  it('is NaN throughout with no samples', () => {
    expect(summarize([Number.NaN])).toEqual({
      n: 0,
      mean: Number.NaN,
      p50: Number.NaN,
      p99: Number.NaN,
      max: Number.NaN,
    });
  });
});

describe('TickLog', () => {
  it('finds the first tick at or after a moment', () => {
    const times = [0, 20, 40.5, 60];
    let next = 0;
    const log = new TickLog(() => times[next++]!);
    for (let i = 0; i < times.length; i++) log.tick();
    expect(log.firstAtOrAfter(-5)).toBe(0);
    expect(log.firstAtOrAfter(20)).toBe(20);
    expect(log.firstAtOrAfter(20.1)).toBe(40.5);
    expect(log.firstAtOrAfter(60.1)).toBeUndefined();
  });
});

describe('turn keys', () => {
  it('travel inside text and are found again', () => {
    const key = turnKey(3, 12);
    expect(key).toBe('s3u12');
    expect(turnKeyIn(`Reply ${key} now, the answer is yes.`)).toBe('s3u12');
    expect(turnKeyIn('the caller says nothing')).toBeUndefined();
    expect(turnKeyIn('bus3u1x')).toBeUndefined();
  });
});
