/**
 * The calls suite's own options. The defaults are the methodology: levels stepped up until a gate fails,
 * 5 runs per level, 10 s of warm-up then a 60 s window each. `--quick` is a short check of the harness (two small
 * levels, one run, short windows); any option given beside it wins.
 */
import type { SimCarrier } from '../carrier-sim/index.ts';
import type { SuiteContext } from '../suite.ts';

/** Concurrency levels, stepped up in order until one fails a gate: fine steps up to the target of 300, coarser past it. */
export const DEFAULT_LEVELS = [25, 50, 75, 100, 150, 200, 250, 300, 400, 500, 750, 1_000];
export const DEFAULT_RUNS = 5;
export const DEFAULT_WARMUP_SECONDS = 10;
export const DEFAULT_WINDOW_SECONDS = 60;
/** The carriers whose protocols the callers speak, call by call in turn. */
export const DEFAULT_CARRIERS: SimCarrier[] = ['carrier-a', 'carrier-b'];
/** What `--quick` sets (unless given too). */
export const QUICK = { levels: [10, 20], runs: 1, warmupSeconds: 5, windowSeconds: 10 };
/** Most calls one level may ask for: beyond this the load generator, not the engine, is what would be measured. */
const MAX_LEVEL = 5_000;
const MAX_RUNS = 50;
/** An hour: longer windows belong in a soak test. */
const MAX_SECONDS = 3_600;
/** The carriers the callers can speak (carrier-c's 100 ms L16 chunks are another load; it is not part of this test). */
const CARRIERS: readonly SimCarrier[] = ['carrier-a', 'carrier-b'];

export interface CallsOptions {
  levels: number[];
  runs: number;
  warmupSeconds: number;
  windowSeconds: number;
  carriers: SimCarrier[];
  /** Where a profiled extra run at the ceiling writes the engine's CPU profile; none: no profile. */
  cpuProfDir: string | undefined;
  /** The report and charts go here. */
  outDir: string;
  /** Name of the report: `<date>-<name>.md`. */
  name: string;
  quick: boolean;
}

export const CALLS_OPTIONS = {
  levels: {
    type: 'string',
    valueName: '<n,…>',
    description: `concurrent calls per level, stepped up until a gate fails (default ${DEFAULT_LEVELS.join(',')})`,
  },
  runs: {
    type: 'string',
    valueName: '<n>',
    description: `runs per level; a level passes when every run does (default ${DEFAULT_RUNS})`,
  },
  warmup: {
    type: 'string',
    valueName: '<s>',
    description: `seconds after the last call is up, before the window (default ${DEFAULT_WARMUP_SECONDS})`,
  },
  window: {
    type: 'string',
    valueName: '<s>',
    description: `measured seconds per run (default ${DEFAULT_WINDOW_SECONDS}; --duration is not used)`,
  },
  carriers: {
    type: 'string',
    valueName: '<a,…>',
    description: 'carrier protocols the callers speak, in turn (default carrier-a,carrier-b)',
  },
  quick: {
    type: 'boolean',
    description: `a short check: levels ${QUICK.levels.join(',')}, ${QUICK.runs} run, ${QUICK.warmupSeconds} s warm-up, ${QUICK.windowSeconds} s window`,
  },
  'cpu-prof': {
    type: 'string',
    valueName: '<dir>',
    description:
      'after the levels, one more run at the ceiling with the engine under --cpu-prof; its top functions go in the report',
  },
  out: {
    type: 'string',
    valueName: '<dir>',
    description: 'where the report and its SVG charts are written (default bench/results)',
  },
  name: { type: 'string', valueName: '<name>', description: 'the report is <date>-<name>.md (default calls)' },
} as const;

export function parseCallsOptions(extra: SuiteContext['extra'], defaultOutDir: string): CallsOptions | string {
  const quick = extra.quick === true;
  const levels = list(extra.levels, quick ? QUICK.levels : DEFAULT_LEVELS, 1, MAX_LEVEL);
  if (levels === undefined)
    return `--levels must be whole numbers from 1 to ${MAX_LEVEL}, comma-separated, got "${String(extra.levels)}"`;
  const runs = whole(extra.runs, quick ? QUICK.runs : DEFAULT_RUNS, 1, MAX_RUNS);
  if (runs === undefined) return `--runs must be a whole number from 1 to ${MAX_RUNS}, got "${String(extra.runs)}"`;
  const warmupSeconds = whole(extra.warmup, quick ? QUICK.warmupSeconds : DEFAULT_WARMUP_SECONDS, 0, MAX_SECONDS);
  if (warmupSeconds === undefined)
    return `--warmup must be a whole number of seconds from 0 to ${MAX_SECONDS}, got "${String(extra.warmup)}"`;
  const windowSeconds = whole(extra.window, quick ? QUICK.windowSeconds : DEFAULT_WINDOW_SECONDS, 1, MAX_SECONDS);
  if (windowSeconds === undefined)
    return `--window must be a whole number of seconds from 1 to ${MAX_SECONDS}, got "${String(extra.window)}"`;
  const carriers =
    extra.carriers === undefined
      ? DEFAULT_CARRIERS
      : typeof extra.carriers === 'string'
        ? extra.carriers.split(',').map((c) => c.trim())
        : [];
  if (carriers.length === 0 || carriers.some((c) => !CARRIERS.includes(c as SimCarrier))) {
    return `--carriers must name ${CARRIERS.join(' and/or ')}, comma-separated, got "${String(extra.carriers)}"`;
  }
  for (const key of ['cpu-prof', 'out', 'name'] as const) {
    if (extra[key] !== undefined && (typeof extra[key] !== 'string' || extra[key] === ''))
      return `--${key} needs a value`;
  }
  const name = (extra.name as string | undefined) ?? 'calls';
  if (!/^[A-Za-z0-9._-]+$/.test(name)) return `--name may hold letters, digits, ".", "_" and "-" only, got "${name}"`;
  return {
    levels: [...new Set(levels)].sort((a, b) => a - b),
    runs,
    warmupSeconds,
    windowSeconds,
    carriers: carriers as SimCarrier[],
    cpuProfDir: extra['cpu-prof'] as string | undefined,
    outDir: (extra.out as string | undefined) ?? defaultOutDir,
    name,
    quick,
  };
}

function whole(value: string | boolean | undefined, fallback: number, min: number, max: number): number | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  return n >= min && n <= max ? n : undefined;
}

function list(value: string | boolean | undefined, fallback: number[], min: number, max: number): number[] | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'string') return undefined;
  const numbers = value.split(',').map((part) => whole(part.trim(), Number.NaN, min, max));
  return numbers.length > 0 && numbers.every((n) => n !== undefined && Number.isFinite(n))
    ? (numbers as number[])
    : undefined;
}
