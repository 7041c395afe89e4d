/** The engine suite's own options: `--turns <n>`, `--calls <n,…>`, `--stt batch|streaming`, `--vad auto|silero|energy`. */
import type { SuiteContext } from '../suite.ts';
import type { SttMode } from './fixed-latency-providers.ts';

/**
 * Turns measured for the latency figures. The wait for the pacing tick spreads turns evenly over 0–20 ms, so the
 * median needs a few dozen turns to settle; they cost no extra time (the calls run side by side, 8 of them), and
 * the p99 of 40 is still the slowest turn.
 */
export const DEFAULT_TURNS = 40;
/** Concurrent calls of the CPU runs: a small engine's load and a busy one's. */
export const DEFAULT_CALLS = [10, 50];
/** Most calls one CPU run may ask for: beyond that one process is the wrong tool. */
const MAX_CALLS = 1_000;
/** Most turns: at ~5 s each, 10 000 turns is over half a day of real-time calls. */
const MAX_TURNS = 10_000;

/** Voice activity of the engine under test: as the product's default (auto: Silero when its model loads), or forced. */
export type BenchVad = 'auto' | 'silero' | 'energy';

export interface EngineOptions {
  turns: number;
  calls: number[];
  stt: SttMode;
  vad: BenchVad;
}

export function parseEngineOptions(extra: SuiteContext['extra']): EngineOptions | string {
  const { turns, calls, stt, vad } = extra;
  const turnCount = turns === undefined ? DEFAULT_TURNS : wholeNumber(turns, 1, MAX_TURNS);
  if (turnCount === undefined) return `--turns must be a whole number from 1 to ${MAX_TURNS}, got "${String(turns)}"`;
  const callCounts =
    calls === undefined
      ? DEFAULT_CALLS
      : typeof calls === 'string'
        ? calls.split(',').map((c) => wholeNumber(c.trim(), 1, MAX_CALLS))
        : [undefined];
  if (callCounts.some((c) => c === undefined))
    return `--calls must be whole numbers from 1 to ${MAX_CALLS}, comma-separated, got "${String(calls)}"`;
  if (stt !== undefined && stt !== 'batch' && stt !== 'streaming')
    return `--stt must be batch or streaming, got "${String(stt)}"`;
  if (vad !== undefined && vad !== 'auto' && vad !== 'silero' && vad !== 'energy')
    return `--vad must be auto, silero or energy, got "${String(vad)}"`;
  return { turns: turnCount, calls: callCounts as number[], stt: stt ?? 'batch', vad: vad ?? 'auto' };
}

function wholeNumber(value: string | boolean, min: number, max: number): number | undefined {
  if (typeof value !== 'string' || !/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  return n >= min && n <= max ? n : undefined;
}

/** Measured seconds per per-frame case: a fifth of --duration, 1 to 2 s (the figures settle within a second). */
export function frameSecondsFor(durationSeconds: number): number {
  return Math.min(2, Math.max(1, Math.round(durationSeconds / 5)));
}
