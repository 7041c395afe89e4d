import { describe, expect, it } from 'vitest';
import type { MachineFacts } from '../machine.ts';
import { DEFAULT_LATENCIES } from './fixed-latency-providers.ts';
import { frameSecondsFor, parseEngineOptions } from './engine-options.ts';
import {
  buildReport,
  cpuRow,
  formatReport,
  frameRows,
  latencySection,
  TARGET_CALL_CORE_SHARE,
  type CpuWindow,
  type EngineSettings,
} from './report.ts';
import type { TurnRecord } from './turn-overhead.ts';

const machine: MachineFacts = {
  cpuModel: 'Test CPU',
  cores: 2,
  node: 'v20.0.0',
  platform: 'linux x64',
  memoryGiB: 8,
  loadAverage1m: 0.1,
  date: '2026-01-01T00:00:00.000Z',
};
const settings: EngineSettings = {
  durationSeconds: 10,
  frameSeconds: 2,
  frameWarmupSeconds: 1,
  cpuWarmupSeconds: 6,
  stt: 'batch',
  vad: 'energy',
  latencies: DEFAULT_LATENCIES,
  endpointingMs: 600,
  calls: [10],
};

/** A turn whose engine overhead is exactly `overheadMs` (providers exactly on time). */
function turn(overheadMs: number): TurnRecord {
  return {
    report: { turn: 1, endpointingMs: 700, endToEndMs: 700 + 200 + 80 + overheadMs },
    stamps: {
      lastVoicedAt: 0,
      llmRequestAt: 700,
      llmFirstClauseAt: 900,
      ttsRequestAt: 900,
      ttsFirstAudioAt: 980,
      firstFrameAt: 980 + overheadMs,
    },
    tickAfterAudioAt: 980 + overheadMs,
  };
}

function latency(overheads: number[], extra: Partial<{ timeouts: number; unmatched: number }> = {}) {
  return latencySection({
    calls: 1,
    utterances: overheads.length,
    timeouts: 0,
    unmatched: 0,
    records: overheads.map(turn),
    ...extra,
  });
}

function cpuWindow(overrides: Partial<CpuWindow> = {}): CpuWindow {
  return {
    wallMs: 10_000,
    cpuMicros: 500_000,
    loopUtilization: 0.1,
    loopDelayP99Ms: 2,
    framesSent: 5_000,
    voicedFramesSent: 1_000,
    framesHeard: 2_500,
    replies: 20,
    timeouts: 0,
    ...overrides,
  };
}

const frames = frameRows([
  {
    name: 'baseline: μ-law decode loop',
    work: 'w',
    baseline: true,
    batch: 1,
    frames: 100,
    meanMicros: 0.25,
    samples: Float64Array.of(0.2, 0.25, 0.3),
    checksum: 0,
  },
  {
    name: 'inbound: decode + 8→16 kHz + VAD',
    work: 'w',
    baseline: false,
    batch: 1,
    frames: 100,
    meanMicros: 10,
    samples: Float64Array.of(9, 10, 11),
    checksum: 0,
  },
  {
    name: 'outbound: 16→8 kHz + encode + pacing',
    work: 'w',
    baseline: false,
    batch: 1,
    frames: 100,
    meanMicros: 20,
    samples: Float64Array.of(19, 20, 21),
    checksum: 0,
  },
]);

describe('latency verdicts', () => {
  it('meets both targets at exactly 5 ms median and 20 ms p99', () => {
    const l = latency([1, 2, 5, 5, 20]);
    expect(l.components.overheadMs.p50).toBeCloseTo(5);
    expect(l.components.overheadMs.p99).toBeCloseTo(20);
    expect(l).toMatchObject({ overheadP50Met: true, overheadP99Met: true });
  });

  it('misses them just above', () => {
    expect(latency([5.1, 5.1, 20.1])).toMatchObject({ overheadP50Met: false, overheadP99Met: false });
  });
});

describe('cpuRow', () => {
  it('takes the harness off the process, per call, and relates it to the μ-law loop', () => {
    // Process 5 % of a core, harness 1 %: 4 % over 10 calls is 0.4 % per call, 80 µs per 20 ms.
    const row = cpuRow(
      {
        calls: 10,
        harness: cpuWindow({ cpuMicros: 100_000, loopUtilization: 0.02 }),
        engine: cpuWindow(),
        records: [turn(3)],
      },
      0.25,
      0.01,
    );
    expect(row.processShare).toBeCloseTo(0.05);
    expect(row.harnessShare).toBeCloseTo(0.01);
    expect(row.perCallShare).toBeCloseTo(0.004);
    expect(row.perCallMicros).toBeCloseTo(80);
    // Less the idle engine's 1 %: 0.3 % per call; the loop was busy 8 % more than the harness's: 160 µs per 20 ms per call.
    expect(row.marginalShare).toBeCloseTo(0.003);
    expect(row.busyMicros).toBeCloseTo(160);
    expect(row.ratio).toBeCloseTo(320);
    expect(row.met).toBe(false);
    expect(row.agentTalkShare).toBeCloseTo(2_500 / (500 * 10));
    expect(row.callerVoicedShare).toBeCloseTo(0.2);
    expect(row.overhead.p50).toBeCloseTo(3);
  });

  it('meets the target at exactly 0.3 % of a core per call', () => {
    const engine = cpuWindow({ cpuMicros: 100_000 + TARGET_CALL_CORE_SHARE * 10 * 10_000_000 });
    expect(cpuRow({ calls: 10, harness: cpuWindow({ cpuMicros: 100_000 }), engine, records: [] }, 0.25, 0).met).toBe(
      true,
    );
  });
});

describe('the report', () => {
  const cpu = [
    cpuRow(
      { calls: 10, harness: cpuWindow({ cpuMicros: 100_000 }), engine: cpuWindow({ cpuMicros: 200_000 }), records: [] },
      0.25,
      0,
    ),
  ];

  it('says MISSED for each missed target and exits clean (no failures)', () => {
    const report = buildReport(machine, settings, frames, latency([9, 10, 11, 30]), cpu, undefined, []);
    expect(report.failures).toEqual([]);
    expect(report.missed).toEqual(['engine latency p50 10.0 ms > 5 ms', 'engine latency p99 30.0 ms > 20 ms']);
    const text = formatReport(report);
    expect(text).toContain(
      'engine latency per turn: p50 10.0 ms (target ≤ 5 ms: MISSED), p99 30.0 ms (target ≤ 20 ms: MISSED)',
    );
    expect(text).toContain(
      'MISSED 2 targets:\n  engine latency p50 10.0 ms > 5 ms\n  engine latency p99 30.0 ms > 20 ms',
    );
    expect(text).toMatch(/ENGINE OVERHEAD\s+15\.0\s+10\.0\s+30\.0\s+30\.0/);
    expect(text).toContain('machine: Test CPU, 2 cores');
  });

  it('prints the frame table against the baseline and the carrier add-on', () => {
    const text = formatReport(buildReport(machine, settings, frames, latency([1]), cpu, undefined, []));
    expect(text).toMatch(/inbound: decode \+ 8→16 kHz \+ VAD\s+10\.0\s+10\.0\s+11\.0\s+40×/);
    expect(text).toContain(
      'a G.711 carrier call adds at most the inbound + outbound rows: 30.0 µs per 20 ms = 0.150 % of a core',
    );
    expect(text).toMatch(
      /\n\s+10\s+2\.0 %\s+1\.0 %\s+0\.100 %\s+20\.0\s+80×\s+met\s+0\.100 %\s+0\.00\s+20\s+50 %\s+20 %\s+10 %\s+2\.00 ms\s+–\s+–\n/,
    );
    expect(text).not.toContain('idle engine (no calls');
    expect(formatReport(buildReport(machine, settings, frames, latency([1]), cpu, 0.02, []))).toContain(
      'idle engine (no calls; the pacing clock ticking, the workers heartbeating): 2.0 % of a core',
    );
    expect(text).toMatch(/all targets met$/);
  });

  it('is FAILED when turns went unanswered or the engine logged trouble', () => {
    const report = buildReport(machine, settings, frames, latency([1], { timeouts: 1 }), cpu, undefined, [
      'call failed {"callId":"x"}',
    ]);
    expect(report.failures).toEqual(['engine: call failed {"callId":"x"}', 'latency: 1 of 1 utterances got no reply']);
    expect(formatReport(report)).toContain('FAILED: the run went wrong, so its figures do not count:');
  });

  it('notes a busy machine', () => {
    const text = formatReport(
      buildReport({ ...machine, loadAverage1m: 1.5 }, settings, frames, latency([1]), cpu, undefined, []),
    );
    expect(text).toContain('note: load 1.5 on 2 cores when the run started');
  });
});

describe('options', () => {
  it("defaults to 40 turns, 10 and 50 calls, batch STT, the engine role's voice activity", () => {
    expect(parseEngineOptions({})).toEqual({ turns: 40, calls: [10, 50], stt: 'batch', vad: 'auto' });
    expect(parseEngineOptions({ turns: '8', calls: '5, 20', stt: 'streaming', vad: 'energy' })).toEqual({
      turns: 8,
      calls: [5, 20],
      stt: 'streaming',
      vad: 'energy',
    });
  });

  it('refuses what it cannot use, naming the option', () => {
    expect(parseEngineOptions({ turns: '0' })).toMatch(/^--turns/);
    expect(parseEngineOptions({ calls: '10,x' })).toMatch(/^--calls/);
    expect(parseEngineOptions({ stt: 'fast' })).toMatch(/^--stt/);
    expect(parseEngineOptions({ vad: 'webrtc' })).toMatch(/^--vad/);
  });

  it('gives the per-frame cases a fifth of the duration, 1 to 2 s', () => {
    expect([1, 2, 7, 10, 60].map(frameSecondsFor)).toEqual([1, 1, 1, 2, 2]);
  });
});
