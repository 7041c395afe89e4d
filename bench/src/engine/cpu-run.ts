/**
 * The CPU runs: for one number of concurrent calls, first the harness alone (the same scripted callers on the same
 * timers, handing their frames to nothing), then the engine with that many calls in steady conversation; and once,
 * the engine with no calls at all. Each is measured over the same window with process.cpuUsage() (every thread:
 * main, GC helpers, the module loader). The engine's share is the difference, per call.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { monitorEventLoopDelay, performance as perfHooks } from 'node:perf_hooks';
import type { CallerAudio } from './caller-audio.ts';
import { ConversationRig, type RigCall, type RigOptions } from './conversation-rig.ts';
import { collectTurns, LATENCY_SCRIPT, type TurnsResult } from './latency-run.ts';
import { ScriptedCaller, type CallerCounters } from './scripted-caller.ts';

/**
 * Unmeasured seconds after the last call started, before the window: longer than the longest lead-in, so every
 * call is conversing (and V8 has optimised the hot paths).
 */
export const CPU_WARMUP_SECONDS = 7;
/**
 * Each caller first waits a random share of this many frames, 6 s: about one turn (1 s of speech, ~1 s until the
 * reply, ~4 s of it, a pause), so the calls are spread over the phases of a conversation instead of talking in
 * step, and any window sees the mix of listening, thinking and speaking a busy engine sees.
 */
const LEAD_IN_SPREAD_FRAMES = 300;
/** Unmeasured seconds of the harness alone before its window. */
const HARNESS_WARMUP_SECONDS = 1;
/** Calls start spread over this long, ms, as calls arrive, not all on one tick. */
const START_SPREAD_MS = 1_000;
/** Event-loop delay histogram resolution, ms. */
const LOOP_DELAY_RESOLUTION_MS = 5;

export interface WindowMeasure {
  wallMs: number;
  /** User + system CPU time of the process over the window, µs. */
  cpuMicros: number;
  /** Share of the window the event loop was busy (0–1). */
  loopUtilization: number;
  /** 99th percentile of the event loop's delay over the window, ms. */
  loopDelayP99Ms: number;
  counters: CallerCounters;
}

export interface CpuRunResult {
  calls: number;
  harness: WindowMeasure;
  engine: WindowMeasure;
  /** Every turn of the engine run (warm-up and window), for the overhead under this load. */
  turns: TurnsResult;
}

function sumCounters(callers: readonly ScriptedCaller[]): CallerCounters {
  const total: CallerCounters = {
    framesSent: 0,
    voicedFramesSent: 0,
    framesHeard: 0,
    utterances: 0,
    replies: 0,
    timeouts: 0,
  };
  for (const caller of callers) {
    for (const key of Object.keys(total) as (keyof CallerCounters)[]) total[key] += caller.counters[key];
  }
  return total;
}

async function measureWindow(
  seconds: number,
  signal: AbortSignal,
  callers: readonly ScriptedCaller[],
): Promise<WindowMeasure> {
  const delay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
  delay.enable();
  const before = sumCounters(callers);
  const loopBefore = perfHooks.eventLoopUtilization();
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  await sleep(seconds * 1000, undefined, { signal }).catch(() => {});
  const cpu = process.cpuUsage(cpuBefore);
  const wallMs = performance.now() - startedAt;
  const loop = perfHooks.eventLoopUtilization(loopBefore);
  delay.disable();
  const after = sumCounters(callers);
  const counters = { ...after };
  for (const key of Object.keys(counters) as (keyof CallerCounters)[]) counters[key] -= before[key];
  return {
    wallMs,
    cpuMicros: cpu.user + cpu.system,
    loopUtilization: loop.utilization,
    loopDelayP99Ms: delay.percentile(99) / 1e6,
    counters,
  };
}

async function measureHarness(
  calls: number,
  seconds: number,
  audio: CallerAudio,
  signal: AbortSignal,
): Promise<WindowMeasure> {
  // The frames go nowhere, but each is read into an object that outlives the loop, so no step is optimised away.
  const sink = { sum: 0 };
  const callers = Array.from(
    { length: calls },
    () =>
      new ScriptedCaller(
        (frame) => {
          sink.sum += frame[0]!;
        },
        { ...LATENCY_SCRIPT, turns: Infinity },
        audio,
      ),
  );
  for (const caller of callers) caller.start();
  try {
    await sleep(HARNESS_WARMUP_SECONDS * 1000, undefined, { signal }).catch(() => {});
    return await measureWindow(seconds, signal, callers);
  } finally {
    for (const caller of callers) caller.stop();
  }
}

/**
 * The engine with no calls, over the same window: its fixed cost (the pacing clock ticking every 20 ms, as it does
 * while any call is up, and the workers' heartbeats), which the calls of a run share.
 */
export async function measureIdleEngine(
  options: RigOptions & { seconds: number; signal: AbortSignal },
): Promise<WindowMeasure> {
  const rig = new ConversationRig(options);
  try {
    await sleep(HARNESS_WARMUP_SECONDS * 1000, undefined, { signal: options.signal }).catch(() => {});
    return await measureWindow(options.seconds, options.signal, []);
  } finally {
    await rig.close();
  }
}

export async function runCpu(
  options: RigOptions & { calls: number; seconds: number; signal: AbortSignal },
): Promise<CpuRunResult> {
  const { calls, seconds, signal } = options;
  const harness = await measureHarness(calls, seconds, options.audio, signal);
  const rig = new ConversationRig(options);
  try {
    const started: RigCall[] = [];
    for (let c = 0; c < calls && !signal.aborted; c++) {
      const leadInFrames = 1 + Math.floor(Math.random() * LEAD_IN_SPREAD_FRAMES);
      started.push(await rig.startCall({ ...LATENCY_SCRIPT, leadInFrames, turns: Infinity }));
      await sleep(START_SPREAD_MS / calls);
    }
    await sleep(CPU_WARMUP_SECONDS * 1000, undefined, { signal }).catch(() => {});
    const engine = await measureWindow(
      seconds,
      signal,
      started.map((call) => call.caller),
    );
    const turns = await collectTurns(rig, started);
    return { calls, harness, engine, turns };
  } finally {
    await rig.close();
  }
}
