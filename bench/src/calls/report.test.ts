import { describe, expect, it } from 'vitest';
import type { MachineFacts } from '../machine.ts';
import { CALL_LATENCIES } from './call-providers.ts';
import { formatReport, memorySlopeMiB, targetRows, type CallsReport } from './report.ts';
import { level, PROVIDER_MS } from './test-runs.ts';

const machine: MachineFacts = {
  cpuModel: 'Test CPU',
  cores: 2,
  node: 'v20.20.2',
  platform: 'linux x64',
  memoryGiB: 8,
  loadAverage1m: 0.2,
  date: '2026-11-22T08:00:00.000Z',
};

function report(levels: CallsReport['levels']): CallsReport {
  return {
    machine,
    versions: { parley: '0.1.0', natsServer: 'v2.9.10', commit: 'abc1234' },
    settings: {
      command: 'npm run bench -- calls',
      levels: levels.map((l) => l.calls),
      runs: 2,
      warmupSeconds: 10,
      windowSeconds: 60,
      carriers: ['carrier-a', 'carrier-b'],
      latencies: CALL_LATENCIES,
      providerMs: PROVIDER_MS,
      extraTokens: 5,
      ttsLeadMs: 100,
      endpointingMs: 100,
      sentence: 'Hello there',
      clipMs: 3_080,
      longestPauseMs: 120,
      interUtteranceMs: 700,
      greeting: 'Hi',
      ringMs: 2_000,
      spacingMs: 10,
      vad: 'silero',
    },
    levels,
    interrupted: false,
    charts: { latencyCdf: 'x-latency-cdf.svg', gap: 'x-gap-p90.svg', cpu: 'x-cpu.svg' },
  };
}

describe('targetRows', () => {
  it('judges each target at the ceiling and says by how much one was missed', () => {
    // 1 MiB per call up to 200 calls; the 300-call level fails its CPU gate.
    const levels = [
      level(100, 2, { engineCpuMs: 20_000 }),
      level(200, 2, { engineCpuMs: 40_000 }),
      level(300, 1, { engineCpuMs: 60_000 }),
    ];
    const rows = targetRows(report(levels));
    expect(rows[0]).toEqual({
      target: 'ceiling ≥ 300 concurrent calls under the gates',
      figure: '200 calls',
      met: false,
      note: 'missed by 100 calls',
    });
    expect(rows[1]).toMatchObject({ figure: '20.0 ms (at 200 calls)', met: false, note: 'missed by 10.0 ms (2.0×)' });
    expect(rows[2]).toMatchObject({ figure: '30.0 ms (at 200 calls)', met: true, note: '' });
    expect(rows[3]).toMatchObject({ figure: '0.0 ms (at 200 calls)', met: true });
    // Barge-in stop from the caller's first word: every test barge-in stopped after 930 ms.
    expect(rows[4]).toMatchObject({ figure: '930.0 ms (at 200 calls)', met: false, note: 'missed by 730.0 ms (4.7×)' });
    expect(rows[5]).toMatchObject({ figure: '930.0 ms (at 200 calls)', met: false, note: 'missed by 630.0 ms (3.1×)' });
    expect(rows[6]).toMatchObject({ figure: '–', met: undefined, note: 'not measured' });
    expect(rows[7]).toMatchObject({ figure: '1.00 MiB (at 200 calls)', met: true });
    expect(memorySlopeMiB(levels)).toBeCloseTo(1, 9);
  });

  it('judges the backchannel set by its false cut-offs', () => {
    const figures = { said: 8, paused: 8, resumed: 7, falseCutOffs: 1, pauseMs: [300, 400, 500] };
    const row = (falseCutOffs: number) =>
      targetRows({ ...report([level(100, 1)]), backchannel: { ...figures, falseCutOffs } }).find((r) =>
        r.target.startsWith('false cut-offs'),
      );
    expect(row(1)).toMatchObject({ met: false, note: 'missed by 1' });
    expect(row(1)!.figure).toContain('1 of 8');
    expect(row(0)).toMatchObject({ met: true, note: '' });
    expect(row(0)!.figure).toContain('pause p50 400 ms');
  });

  it('says the ceiling is at least the top level when every level tried passed', () => {
    expect(targetRows(report([level(100, 1), level(200, 1)]))[0]).toMatchObject({
      figure: '≥ 200 calls (every level tried passed)',
      met: false,
    });
  });
});

describe('formatReport', () => {
  const levels = [level(100, 2, { engineCpuMs: 20_000 }), level(200, 1, { engineCpuMs: 60_000 })];
  const markdown = formatReport(report(levels));

  it('heads with the ceiling, the date and the machine', () => {
    expect(markdown.startsWith('# Concurrent calls: ceiling 100 calls (2026-11-22)\n')).toBe(true);
    expect(markdown).toContain('Machine: Test CPU, 2 cores, 8 GiB, linux x64, Node v20.20.2');
    expect(markdown).toContain('nats-server v2.9.10');
  });

  it("lists every run's gates, the failed one in bold", () => {
    expect(markdown).toContain(
      '| 100 | 1 | 100/100 | 1.00 ms | agent 100.0 %, caller 100.0 % | worst call answered 100.0 % | 33.3 % of a core | pass |',
    );
    expect(markdown).toContain(
      '| 200 | 1 | 200/200 | 1.00 ms | agent 100.0 %, caller 100.0 % | worst call answered 100.0 % | **100.0 % of a core** | **fail** |',
    );
  });

  it('gives the latency at the ceiling per carrier, pooled over its runs', () => {
    expect(markdown).toContain('## Latency at 100 calls, at the caller (all 2 run(s) pooled');
    expect(markdown).toContain(
      '| carrier-a | 300 | 450.0 / 460.0 / 460.0 | 20.0 / 30.0 / 30.0 | 12.0 / 12.0 / 12.0 | 100 | 930.0 / 930.0 / 930.0 | 940.0 / 940.0 | 0.0 (0 msgs) |',
    );
    expect(markdown).toContain('| all | 600 |');
  });

  it("breaks the turn down with the engine's own reports", () => {
    expect(markdown).toContain('| endpointing | 202.0 | 202.0 | 200 | 2.0 |');
    expect(markdown).toContain('| engine hops | 1.0 | 1.0 |');
    expect(markdown).toContain("| outside the engine's clock | 13.0 |");
  });

  it('links the charts and says there were no incidents', () => {
    expect(markdown).toContain('![Latency CDF](x-latency-cdf.svg)');
    expect(markdown).toContain('![CPU against concurrency](x-cpu.svg)');
    expect(markdown).toContain('None: no call failed to start');
  });

  it("says what stopped the ladder and what Parley's share is made of", () => {
    expect(markdown).toContain(
      '- The ladder stopped at 200 calls, run 1: engine CPU 100.0 % of a core (gate < 80.0 %).',
    );
    expect(markdown).toContain(
      "- Parley's share of a turn at 100 calls, p50 20.0 ms: 13.0 ms before the engine's clock starts",
    );
    expect(markdown).toContain(
      "endpointing 2.0, LLM 2.0, TTS 2.0 ms (bus trips, timers firing late), and the engine's own hops 1.0 ms",
    );
  });

  it('lists a broken run and an incident', () => {
    const broken = [...levels];
    broken[1] = { ...broken[1]!, errors: ['run 2: engine process exited (code 1, signal null)'] };
    broken[0]!.runs[0]!.figures.incidents = { 'call failed': { count: 2, example: '{"callId":"x"}' } };
    const text = formatReport(report(broken));
    expect(text).toContain('**broke**: run 2: engine process exited (code 1, signal null)');
    expect(text).toContain('- 100 calls, run 1: engine logged "call failed" 2× (e.g. `{"callId":"x"}`)');
  });
});
