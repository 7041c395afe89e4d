/**
 * Times the frame cases of one run, interleaved: every round gives each case a short slice, in a rotating order, so
 * a CPU that changes speed mid-run (turbo, a neighbour waking up) moves every case alike and the ratios hold.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { SampleBuffer } from '../percentiles.ts';
import type { FrameCase } from './cases.ts';

/** Each case's share of one round, in ms: long enough to amortise the switch, short enough to interleave well. */
const SLICE_MS = 50;
/**
 * A timed batch lasts about this long, in µs: the timer read (~50 ns) then costs under 1 %, and a batch is still
 * short enough to show a slow frame in the p99.
 */
const TARGET_BATCH_MICROS = 20;
/** Frames per batch at most, whatever the case's speed. */
const MAX_BATCH = 1024;

export interface CaseTiming {
  name: string;
  work: string;
  baseline: boolean;
  /** Frames per timed batch; each sample is a batch's mean µs per frame. */
  batch: number;
  frames: number;
  /** Mean µs per frame over the whole measured time. */
  meanMicros: number;
  /** Sorted µs-per-frame samples, one per batch. */
  samples: Float64Array;
  /** Sum of the steps' results: printed nowhere, kept so that no step can be optimised away. */
  checksum: number;
}

export interface MeasureOptions {
  /** Measured seconds per case. */
  durationSeconds: number;
  /** Unmeasured seconds per case before measuring, for V8 to optimise the hot paths. */
  warmupSeconds: number;
  signal: AbortSignal;
}

/** Runs `step` for about `ms` milliseconds in batches of `batch`; returns frames and ns spent. */
function slice(
  frameCase: FrameCase,
  batch: number,
  ms: number,
  samples: SampleBuffer | undefined,
): { frames: number; nanos: number; checksum: number } {
  const deadline = process.hrtime.bigint() + BigInt(Math.round(ms * 1e6));
  let frames = 0;
  let nanos = 0;
  let checksum = 0;
  for (;;) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) checksum += frameCase.step();
    const end = process.hrtime.bigint();
    const spent = Number(end - start);
    nanos += spent;
    frames += batch;
    samples?.push(spent / batch / 1000);
    if (end >= deadline) return { frames, nanos, checksum };
  }
}

export async function measureCases(cases: readonly FrameCase[], options: MeasureOptions): Promise<CaseTiming[]> {
  // Warm-up, which also sizes each case's batch from its speed.
  const batches = new Map<FrameCase, number>();
  const warmupRounds = Math.max(1, Math.round((options.warmupSeconds * 1000) / SLICE_MS));
  for (let round = 0; round < warmupRounds && !options.signal.aborted; round++) {
    for (const frameCase of cases) {
      const { frames, nanos } = slice(frameCase, batches.get(frameCase) ?? 1, SLICE_MS, undefined);
      const micros = nanos / frames / 1000;
      batches.set(frameCase, Math.min(MAX_BATCH, Math.max(1, Math.round(TARGET_BATCH_MICROS / micros))));
    }
    await yieldToEventLoop();
  }

  const totals = cases.map(() => ({ frames: 0, nanos: 0, checksum: 0, samples: new SampleBuffer() }));
  const rounds = Math.max(1, Math.round((options.durationSeconds * 1000) / SLICE_MS));
  for (let round = 0; round < rounds && !options.signal.aborted; round++) {
    for (let k = 0; k < cases.length; k++) {
      const index = (round + k) % cases.length;
      const frameCase = cases[index]!;
      const total = totals[index]!;
      const result = slice(frameCase, batches.get(frameCase) ?? 1, SLICE_MS, total.samples);
      total.frames += result.frames;
      total.nanos += result.nanos;
      total.checksum += result.checksum;
    }
    // Lets Ctrl-C through between rounds.
    await yieldToEventLoop();
  }

  return cases.map((frameCase, index) => {
    const total = totals[index]!;
    return {
      name: frameCase.name,
      work: frameCase.work,
      baseline: frameCase.baseline === true,
      batch: batches.get(frameCase) ?? 1,
      frames: total.frames,
      meanMicros: total.frames > 0 ? total.nanos / total.frames / 1000 : Number.NaN,
      samples: total.samples.sorted(),
      checksum: total.checksum,
    };
  });
}
