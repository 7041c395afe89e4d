/**
 * The report's three charts: the latency CDF of Parley's share of a turn at the ceiling, per carrier; the
 * audible-gap p90 against concurrency; and CPU against concurrency (the engine, gated; the callers and the NATS
 * server beside it). Each run is a dot, each level's median a line, each gate a dashed line.
 */
import type { LevelOutcome } from './gates.ts';
import { ENGINE_CPU_LIMIT, GAP_P90_LIMIT_MS, TARGETS } from './gates.ts';
import { renderChart, type Point, type Series } from './svg-chart.ts';

export const COLORS: Record<string, string> = {
  'carrier-a': '#1f6fb4',
  'carrier-b': '#d1492e',
  engine: '#1f6fb4',
  callers: '#e08a1e',
  nats: '#7b5ea7',
  limit: '#c0392b',
  target: '#2e8b57',
};
/** A CDF drawn with more points than this is thinned to this many (the eye sees no difference). */
const CDF_POINTS = 300;

/** Points of the empirical CDF of `values`: x a value, y the percentage of values at or below it. */
export function cdfPoints(values: readonly number[], maxPoints = CDF_POINTS): Point[] {
  const sorted = [...values].filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return [];
  const step = Math.max(1, Math.ceil(n / maxPoints));
  const points: Point[] = [];
  for (let i = 0; i < n; i += step) points.push({ x: sorted[i]!, y: ((i + 1) / n) * 100 });
  if (points.at(-1)!.y !== 100) points.push({ x: sorted[n - 1]!, y: 100 });
  return points;
}

export function median(values: readonly number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Where the CDF's x axis ends: past the 99th percentile (and the p99 target) with room to spare, so a few slow
 * turns do not squeeze the body of the curve into a sliver; the tail beyond is named in the title.
 */
export function cdfAxisEnd(samples: readonly number[]): number {
  const sorted = samples.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return TARGETS.parleyTurnP99Ms * 2;
  const p99 = sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)]!;
  const end = Math.max(p99 * 1.25, TARGETS.parleyTurnP99Ms * 2);
  const step = 10 ** Math.floor(Math.log10(end));
  return Math.ceil(end / step) * step;
}

export function latencyCdfChart(level: LevelOutcome, providerMs: number): string {
  const byCarrier = new Map<string, number[]>();
  for (const { carrier, window } of level.runs.flatMap((run) => run.windows)) {
    const samples = byCarrier.get(carrier) ?? [];
    for (const ms of window.turnMs) samples.push(ms - providerMs);
    byCarrier.set(carrier, samples);
  }
  const all = [...byCarrier.values()].flat();
  const end = cdfAxisEnd(all);
  const beyond = all.filter((v) => v > end);
  const series: Series[] = [...byCarrier]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([carrier, samples]) => ({
      name: `${carrier} (${samples.length} turns)`,
      color: COLORS[carrier] ?? '#333',
      // The curve runs off the right edge at the axis' end rather than past it.
      points: cdfPoints(samples).map((p) => ({ x: Math.min(p.x, end), y: p.y })),
    }));
  const tail = beyond.length
    ? ` (${beyond.length} slower, to ${Math.max(...beyond).toFixed(0)} ms, beyond the axis)`
    : '';
  return renderChart({
    title: `Parley's share of a turn at ${level.calls} calls${tail}`,
    xLabel: `ms: end of the caller's speech → first agent audio at the caller, less the providers' ${providerMs} ms`,
    yLabel: '% of turns at or below',
    series,
    xRange: [Math.min(0, ...all), end],
    yRange: [0, 100],
    references: [
      { label: `target p50 ≤ ${TARGETS.parleyTurnP50Ms} ms`, color: COLORS.target!, x: TARGETS.parleyTurnP50Ms },
      { label: `target p99 ≤ ${TARGETS.parleyTurnP99Ms} ms`, color: COLORS.target!, x: TARGETS.parleyTurnP99Ms },
    ],
  });
}

function perLevel(levels: readonly LevelOutcome[], pick: (run: LevelOutcome['runs'][number]) => number | undefined) {
  const passed: Point[] = [];
  const failed: Point[] = [];
  const medians: Point[] = [];
  for (const level of [...levels].sort((a, b) => a.calls - b.calls)) {
    const values: number[] = [];
    for (const run of level.runs) {
      const y = pick(run);
      if (y === undefined || !Number.isFinite(y)) continue;
      values.push(y);
      (run.gates.every((g) => g.pass) ? passed : failed).push({ x: level.calls, y });
    }
    if (values.length) medians.push({ x: level.calls, y: median(values) });
  }
  return { passed, failed, medians };
}

export function gapChart(levels: readonly LevelOutcome[]): string {
  const gap = perLevel(levels, (run) => run.figures.all.gaps.p90);
  return renderChart({
    title: 'Audible-gap p90 against concurrent calls',
    xLabel: 'concurrent calls',
    yLabel: 'gap p90, ms past the 20 ms cadence',
    series: [
      { name: "median of the level's runs", color: COLORS.engine!, points: gap.medians },
      { name: 'a run that passed every gate', color: '#9aa5b1', points: gap.passed, line: false, dots: true },
      { name: 'a run that failed one', color: COLORS.limit!, points: gap.failed, line: false, dots: true },
    ],
    references: [{ label: `gate: p90 < ${GAP_P90_LIMIT_MS} ms`, color: COLORS.limit!, y: GAP_P90_LIMIT_MS }],
  });
}

export function cpuChart(levels: readonly LevelOutcome[]): string {
  const engine = perLevel(levels, (run) => run.figures.engine.coreShare * 100);
  const callers = perLevel(levels, (run) => run.figures.callers.coreShare * 100);
  const nats = perLevel(levels, (run) =>
    run.figures.natsCoreShare === undefined ? undefined : run.figures.natsCoreShare * 100,
  );
  const loop = perLevel(levels, (run) => run.figures.engine.loopUtilization * 100);
  return renderChart({
    title: "CPU against concurrent calls (medians of each level's runs)",
    xLabel: 'concurrent calls',
    yLabel: '% of one core over the window',
    series: [
      { name: 'engine process (gated)', color: COLORS.engine!, points: engine.medians, dots: true },
      { name: 'engine event loop busy', color: '#8fb8de', points: loop.medians, dots: true },
      { name: 'callers (load generator)', color: COLORS.callers!, points: callers.medians, dots: true },
      { name: 'nats-server', color: COLORS.nats!, points: nats.medians, dots: true },
    ],
    references: [
      { label: `gate: engine < ${ENGINE_CPU_LIMIT * 100} %`, color: COLORS.limit!, y: ENGINE_CPU_LIMIT * 100 },
    ],
  });
}
