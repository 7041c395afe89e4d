/**
 * The engine-audio suite's report: per case the mean and p99 µs per 20 ms frame, the ratio to the μ-law decode
 * loop measured in the same run, and what one stream of it costs as a share of a core.
 */
import { describeMachine, type MachineFacts } from '../machine.ts';
import { percentile } from '../percentiles.ts';
import { formatTable } from '../table.ts';
import type { CaseTiming } from './measure.ts';

/** Real time per frame, in µs: a stream's share of a core is its µs per frame over this. */
const FRAME_MICROS = 20_000;

export interface CaseResult {
  name: string;
  work: string;
  baseline: boolean;
  frames: number;
  batch: number;
  meanMicros: number;
  p50Micros: number;
  p99Micros: number;
  /** mean ÷ the baseline's mean. */
  ratio: number;
  /** One stream's share of one core, running this once per 20 ms (0.01 = 1 %). */
  coreShare: number;
}

export interface EngineAudioReport {
  suite: 'engine-audio';
  machine: MachineFacts;
  settings: { durationSeconds: number; warmupSeconds: number; opusBackends: string[] };
  cases: CaseResult[];
  /** Inbound + outbound of one G.711 carrier call, µs per 20 ms, and its share of a core. */
  g711Call: { micros: number; coreShare: number } | undefined;
}

export function buildReport(
  machine: MachineFacts,
  settings: EngineAudioReport['settings'],
  timings: readonly CaseTiming[],
): EngineAudioReport {
  const baseline = timings.find((t) => t.baseline);
  const cases = timings.map(
    (t): CaseResult => ({
      name: t.name,
      work: t.work,
      baseline: t.baseline,
      frames: t.frames,
      batch: t.batch,
      meanMicros: t.meanMicros,
      p50Micros: percentile(t.samples, 50),
      p99Micros: percentile(t.samples, 99),
      ratio: baseline && baseline.meanMicros > 0 ? t.meanMicros / baseline.meanMicros : Number.NaN,
      coreShare: t.meanMicros / FRAME_MICROS,
    }),
  );
  // The first inbound row is the configuration carrier transports use.
  const inbound = cases.find((c) => c.name.startsWith('inbound'));
  const outbound = cases.find((c) => c.name.startsWith('outbound'));
  const g711Call =
    inbound && outbound
      ? {
          micros: inbound.meanMicros + outbound.meanMicros,
          coreShare: (inbound.meanMicros + outbound.meanMicros) / FRAME_MICROS,
        }
      : undefined;
  return { suite: 'engine-audio', machine, settings, cases, g711Call };
}

export function formatReport(report: EngineAudioReport): string {
  const header = ['case', 'µs/frame mean', 'p50', 'p99', '× baseline', 'core/stream', 'batch', 'one step'];
  const rows: string[][] = [header];
  for (const c of report.cases) {
    rows.push([
      c.name,
      micros(c.meanMicros),
      micros(c.p50Micros),
      micros(c.p99Micros),
      ratio(c.ratio),
      percent(c.coreShare),
      String(c.batch),
      c.work,
    ]);
  }
  const { settings } = report;
  const lines = [
    `engine-audio: µs of CPU per 20 ms frame, ${settings.durationSeconds} s measured per case after ${settings.warmupSeconds} s warm-up, ` +
      'cases interleaved in 50 ms slices',
    `machine: ${describeMachine(report.machine)}`,
    '',
    formatTable(rows, ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'left']),
    '',
    'p50/p99 are over timed batches of `batch` frames (each batch ≥ ~20 µs, so the timer costs < 1 %); ' +
      'core/stream is one call-direction running once per 20 ms, as a share of one core.',
  ];
  if (report.g711Call) {
    lines.push(
      `one G.711 carrier call (inbound + outbound audio conversion): ${micros(report.g711Call.micros)} µs per 20 ms = ` +
        `${percent(report.g711Call.coreShare)} of a core`,
    );
  }
  return lines.join('\n');
}

function micros(value: number): string {
  if (!Number.isFinite(value)) return '–';
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

function ratio(value: number): string {
  return Number.isFinite(value) ? `${value < 10 ? value.toFixed(1) : Math.round(value)}×` : '–';
}

function percent(share: number): string {
  return Number.isFinite(share) ? `${(share * 100).toFixed(share < 0.001 ? 4 : 3)} %` : '–';
}
