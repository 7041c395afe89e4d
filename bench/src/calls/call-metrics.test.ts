import { describe, expect, it } from 'vitest';
import {
  carrierFigures,
  delivery,
  engineBreakdown,
  MIN_ANSWERED_SHARE,
  processFigures,
  runFigures,
  slope,
  spread,
} from './call-metrics.ts';
import { callWindow, PROVIDER_MS, rawRun, reading } from './test-runs.ts';

describe('spread', () => {
  it('gives nearest-rank percentiles over the finite values', () => {
    const values = [...Array.from({ length: 100 }, (_, i) => i + 1), Number.NaN];
    expect(spread(values)).toEqual({ n: 100, p50: 50, p90: 90, p99: 99, max: 100 });
  });

  it('is NaN throughout with no samples', () => {
    expect(spread([])).toEqual({ n: 0, p50: Number.NaN, p90: Number.NaN, p99: Number.NaN, max: Number.NaN });
  });
});

describe('carrierFigures', () => {
  it("pools the calls' samples and subtracts the providers' time from each turn", () => {
    const figures = carrierFigures(
      [callWindow({ turnMs: [440, 470] }), callWindow({ turnMs: [450], greetingMs: undefined })],
      PROVIDER_MS,
    );
    expect(figures.turn).toMatchObject({ n: 3, p50: 450, max: 470 });
    expect(figures.parleyTurn).toMatchObject({ n: 3, p50: 20, p99: 40 });
    expect(figures.greeting).toMatchObject({ n: 1, p50: 12 });
    expect(figures.gaps).toMatchObject({ n: 20, p50: 0, p90: 1, max: 2 });
    expect(figures.bargeStop).toMatchObject({ n: 2, p99: 930 });
    expect(figures).toMatchObject({ calls: 2, utterances: 6, answered: 6, messagesAfterClear: 0 });
  });
});

describe('delivery', () => {
  const caller = {
    callId: 'c1',
    carrier: 'carrier-a' as const,
    sentMessages: 100,
    receivedMessages: 40,
    violations: 0,
    closeCode: 1000,
    latency: undefined,
  };
  const engine = {
    callId: 'c1',
    carrier: 'carrier-a',
    media: 100,
    droppedFrames: 0,
    sentPayloads: 40,
    droppedPayloads: 0,
    malformed: 0,
    clears: 0,
  };

  it('finds nothing short when both sides agree', () => {
    expect(delivery([caller], [engine])).toEqual({
      agentSent: 40,
      agentDropped: 0,
      agentReceived: 40,
      callerSent: 100,
      callerTaken: 100,
      callerDropped: 0,
      callsShort: 0,
      violations: 0,
    });
  });

  it('counts a call short when a frame went missing either way, was dropped, or the engine never reported it', () => {
    expect(delivery([{ ...caller, receivedMessages: 39 }], [engine]).callsShort).toBe(1);
    expect(delivery([caller], [{ ...engine, media: 99 }]).callsShort).toBe(1);
    expect(delivery([caller], [{ ...engine, droppedPayloads: 1 }]).callsShort).toBe(1);
    expect(delivery([caller], [])).toMatchObject({ callsShort: 1, agentSent: 0, callerSent: 100 });
  });
});

describe('engineBreakdown', () => {
  it("sums the engine's reports and derives its own hops", () => {
    const b = engineBreakdown([
      { turns: [{ turn: 1, endpointingMs: 201, llmFirstTokenMs: 151, ttsFirstByteMs: 81, endToEndMs: 436 }] },
      undefined,
      { greetingMs: 4, turns: [{ turn: 1, endpointingMs: 1_500 }] },
    ]);
    expect(b.turns).toBe(2);
    expect(b.engineHops).toMatchObject({ n: 1, p50: 3 });
    expect(b.endpointing).toMatchObject({ n: 2, max: 1_500 });
    expect(b.greeting).toMatchObject({ n: 1, p50: 4 });
  });
});

describe('processFigures', () => {
  it("gives CPU as a share of one core and the loop's busy share over the window", () => {
    const f = processFigures(
      reading(0, 1_000, { loopActiveMs: 100, loopIdleMs: 100 }),
      reading(10_000, 5_000, { loopActiveMs: 4_100, loopIdleMs: 6_100, loopDelayP99Ms: 7 }),
    );
    expect(f).toEqual({ coreShare: 0.4, loopUtilization: 0.4, loopDelayP99Ms: 7 });
  });
});

describe('runFigures', () => {
  it('turns a run into its figures', () => {
    const f = runFigures(rawRun(100, { engineCpuMs: 30_000, rssPerCallMiB: 1.5 }), PROVIDER_MS);
    expect(f.engine.coreShare).toBeCloseTo(0.5, 9);
    expect(f.engine.cpuMsPerCallSecond).toBeCloseTo(5, 9);
    expect(f.engine.rssPerCallMiB).toBeCloseTo(1.5, 9);
    expect(f.callers.coreShare).toBeCloseTo(0.2, 9);
    expect(f.natsCoreShare).toBeCloseTo(0.1, 9);
    expect(Object.keys(f.byCarrier).sort()).toEqual(['carrier-a', 'carrier-b']);
    expect(f.byCarrier['carrier-a']!.calls).toBe(50);
    expect(f.all.parleyTurn.p50).toBe(20);
    expect(f.delivery.callsShort).toBe(0);
    expect(f.breakdown.engineHops.p50).toBe(1);
    expect(f.providerLate.llm.max).toBe(0.4);
    expect(f).toMatchObject({ worstAnsweredShare: 1, quietCalls: 0 });
  });

  it('counts as quiet the calls that answered too few of their utterances, and those that never came up', () => {
    const raw = rawRun(4);
    raw.windows[0]!.window = callWindow({ utterances: 10, answered: 8 });
    raw.calls = 5;
    const f = runFigures(raw, PROVIDER_MS);
    expect(0.8).toBeLessThan(MIN_ANSWERED_SHARE);
    expect(f.worstAnsweredShare).toBe(0.8);
    expect(f.quietCalls).toBe(2);
  });
});

describe('slope', () => {
  it('fits y on x by least squares', () => {
    expect(
      slope([
        { x: 100, y: 300 },
        { x: 200, y: 450 },
        { x: 300, y: 600 },
      ]),
    ).toBeCloseTo(1.5, 12);
    expect(slope([{ x: 100, y: 1 }])).toBeNaN();
  });
});
