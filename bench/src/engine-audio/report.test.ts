import { describe, expect, it } from 'vitest';
import type { MachineFacts } from '../machine.ts';
import type { CaseTiming } from './measure.ts';
import { buildReport, formatReport } from './report.ts';

const machine: MachineFacts = {
  cpuModel: 'Test CPU',
  cores: 2,
  node: 'v20.0.0',
  platform: 'linux x64',
  memoryGiB: 8,
  loadAverage1m: 0.1,
  date: '2026-01-01T00:00:00.000Z',
};
const settings = { durationSeconds: 5, warmupSeconds: 1, opusBackends: ['native'] };

function timing(name: string, meanMicros: number, baseline = false): CaseTiming {
  const samples = Float64Array.from({ length: 100 }, (_, i) => meanMicros * (0.5 + i / 100));
  return { name, work: 'one frame', baseline, batch: 1, frames: 1000, meanMicros, samples, checksum: 0 };
}

describe('engine-audio report', () => {
  const report = buildReport(machine, settings, [
    timing('baseline: μ-law decode loop', 0.25, true),
    timing('inbound: μ-law decode + 8→16 kHz', 10),
    timing('outbound: 16→8 kHz + μ-law encode', 12),
    timing('Opus encode 48 kHz (native)', 60),
  ]);

  it('takes every ratio against the baseline measured in the same run', () => {
    expect(report.cases.map((c) => c.ratio)).toEqual([1, 40, 48, 240]);
  });

  it('gives the p99 over the batches and one stream’s share of a core', () => {
    const opus = report.cases[3]!;
    expect(opus.p99Micros).toBeCloseTo(60 * 1.48);
    expect(opus.coreShare).toBeCloseTo(60 / 20_000);
  });

  it('adds inbound and outbound into the cost of one G.711 call', () => {
    expect(report.g711Call).toEqual({ micros: 22, coreShare: 22 / 20_000 });
  });

  it('prints one row per case with mean, p99 and ratio', () => {
    const text = formatReport(report);
    expect(text).toMatch(/baseline: μ-law decode loop\s+0\.25\s+\S+\s+\S+\s+1\.0×/);
    expect(text).toMatch(/Opus encode 48 kHz \(native\)\s+60\.0\s+\S+\s+88\.8\s+240×\s+0\.300 %/);
    expect(text).toMatch(/one G\.711 carrier call .*22\.0 µs per 20 ms = 0\.110 % of a core/);
  });
});
