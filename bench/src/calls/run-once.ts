/**
 * One run at one concurrency level: a fresh engine process on a bus namespace of its own; the callers' process
 * places the calls; after the warm-up, the measured window (CPU of every process and of the machine read at both
 * ends, the engine's memory sampled through it, the callers' meters opened and closed); then every caller hangs
 * up and both sides' counts of each stream's messages are gathered; the engine stops (writing its CPU profile
 * when forked with `--cpu-prof`).
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { SimCarrier } from '../carrier-sim/index.ts';
import { ChildLink } from './child-link.ts';
import type {
  CallerStreamEnd,
  CallerWindow,
  EngineStreamEnd,
  FromCaller,
  FromEngine,
  ProcessReading,
  ToCaller,
  ToEngine,
} from './messages.ts';
import { findProcess, machineCpu, processCpuMs, processRssBytes, type MachineCpu } from './proc-readings.ts';

const ENGINE_ENTRY = fileURLToPath(new URL('./engine-process.ts', import.meta.url));
/** Loading the engine through tsx, ONNX Runtime and the Silero model, and connecting to NATS: seconds when cold. */
const ENGINE_START_TIMEOUT_MS = 60_000;
/** After the engine is ready, before its idle memory is read, ms: the start-up garbage settles. */
const IDLE_SETTLE_MS = 2_000;
/** A reading or a window's results: immediate for a healthy process. */
const READ_TIMEOUT_MS = 30_000;
/** Hanging up every call: a quiet moment on each line (up to 8 s), its close handshake, the engine's end of its session. */
const HANGUP_TIMEOUT_MS = 60_000;
/** Placing the calls may take this long beyond their spacing and ring, ms. */
const START_SLACK_MS = 60_000;
/** The engine's memory is sampled this often through the window, ms. */
const RSS_SAMPLE_MS = 1_000;
/** After the hang-ups, before the engine's stream counters are read, ms: the media server logs each end as it closes. */
const STREAM_END_SETTLE_MS = 1_000;

export interface RunSettings {
  natsUrl: string;
  calls: number;
  carriers: SimCarrier[];
  warmupSeconds: number;
  windowSeconds: number;
  /** Calls are dispatched this far apart, ms. */
  spacingMs: number;
  /** Each call rings this long before its stream opens, ms. */
  ringMs: number;
  /** Node flags of the engine process (`--cpu-prof` …). */
  engineFlags: readonly string[];
  signal: AbortSignal;
  log(text: string): void;
}

/** Two readings of one process: at the window's start and end. */
export interface ProcessWindow {
  before: ProcessReading;
  after: ProcessReading;
}

export interface RunRaw {
  calls: number;
  connected: number;
  failures: string[];
  vad: 'silero' | 'energy';
  /** The window as it really lasted, ms. */
  windowMs: number;
  windows: CallerWindow[];
  callerEnds: CallerStreamEnd[];
  engineEnds: EngineStreamEnd[];
  incidents: Record<string, { count: number; example: string }>;
  /** The fake providers' own timer lateness, ms per turn (the whole run). */
  llmLateMs: number[];
  ttsLateMs: number[];
  engine: ProcessWindow;
  callers: ProcessWindow;
  /** The engine's resident memory before any call, and sampled through the window, bytes. */
  idleRssBytes: number;
  windowRssBytes: number[];
  /** The NATS server's CPU over the window, ms (undefined: not found or not readable). */
  natsCpuMs: number | undefined;
  /** The machine's busy share over the window, 0–1 of all its cores. */
  machineBusyShare: number | undefined;
}

export async function runOnce(callers: ChildLink<ToCaller, FromCaller>, settings: RunSettings): Promise<RunRaw> {
  const { signal, log } = settings;
  const namespace = `bench-calls-${randomBytes(4).toString('hex')}`;
  const engine = new ChildLink<ToEngine, FromEngine>('engine process', ENGINE_ENTRY, settings.engineFlags);
  let placed = false;
  try {
    const { vad } = await engine.request(
      { type: 'start', natsUrl: settings.natsUrl, namespace },
      'ready',
      ENGINE_START_TIMEOUT_MS,
    );
    await sleep(IDLE_SETTLE_MS);
    const idleRssBytes = (await engine.request({ type: 'read' }, 'read', READ_TIMEOUT_MS)).reading.rssBytes;

    const startTimeout = settings.calls * settings.spacingMs + settings.ringMs + START_SLACK_MS;
    placed = true;
    const started = await callers.request(
      {
        type: 'start',
        plan: {
          namespace,
          calls: settings.calls,
          carriers: settings.carriers,
          spacingMs: settings.spacingMs,
          ringMs: settings.ringMs,
        },
      },
      'started',
      startTimeout,
    );
    log(
      `  ${started.connected}/${settings.calls} calls up${started.failures.length ? ` (${started.failures.length} failed: ${started.failures[0]})` : ''}; warm-up ${settings.warmupSeconds} s…`,
    );
    await sleep(settings.warmupSeconds * 1000, undefined, { signal }).catch(() => {});

    const natsPid = await findProcess('nats-server');
    const natsBefore = natsPid === undefined ? undefined : await processCpuMs(natsPid);
    const machineBefore = await machineCpu();
    const engineBefore = (await engine.request({ type: 'read' }, 'read', READ_TIMEOUT_MS)).reading;
    const callersBefore = (await callers.request({ type: 'read' }, 'read', READ_TIMEOUT_MS)).reading;
    await callers.request({ type: 'open-window' }, 'window-opened', READ_TIMEOUT_MS);
    const openedAt = performance.now();
    const windowRssBytes = await sampleRss(engine.pid, settings.windowSeconds * 1000, signal);
    const { calls: windows } = await callers.request({ type: 'close-window' }, 'window', READ_TIMEOUT_MS);
    const windowMs = performance.now() - openedAt;
    const callersAfter = (await callers.request({ type: 'read' }, 'read', READ_TIMEOUT_MS)).reading;
    const engineAfter = (await engine.request({ type: 'read' }, 'read', READ_TIMEOUT_MS)).reading;
    const machineAfter = await machineCpu();
    const natsAfter = natsPid === undefined ? undefined : await processCpuMs(natsPid);

    log(`  window done (${(windowMs / 1000).toFixed(1)} s); hanging up…`);
    placed = false;
    const { streams: callerEnds } = await callers.request({ type: 'hangup' }, 'hung-up', HANGUP_TIMEOUT_MS);
    await sleep(STREAM_END_SETTLE_MS);
    const {
      streams: engineEnds,
      incidents,
      llmLateMs,
      ttsLateMs,
    } = await engine.request({ type: 'streams' }, 'streams', READ_TIMEOUT_MS);
    return {
      calls: settings.calls,
      connected: started.connected,
      failures: started.failures,
      vad,
      windowMs,
      windows,
      callerEnds,
      engineEnds,
      incidents,
      llmLateMs,
      ttsLateMs,
      engine: { before: engineBefore, after: engineAfter },
      callers: { before: callersBefore, after: callersAfter },
      idleRssBytes,
      windowRssBytes,
      natsCpuMs: natsBefore === undefined || natsAfter === undefined ? undefined : natsAfter - natsBefore,
      machineBusyShare: busyShare(machineBefore, machineAfter),
    };
  } finally {
    // A run cut short (Ctrl-C, a failure) still hangs its calls up before the engine goes.
    if (placed) await callers.request({ type: 'hangup' }, 'hung-up', HANGUP_TIMEOUT_MS).catch(() => {});
    await engine.close({ type: 'stop' });
  }
}

async function sampleRss(pid: number, windowMs: number, signal: AbortSignal): Promise<number[]> {
  const samples: number[] = [];
  const end = performance.now() + windowMs;
  while (!signal.aborted) {
    const left = end - performance.now();
    if (left <= 0) break;
    await sleep(Math.min(RSS_SAMPLE_MS, left), undefined, { signal }).catch(() => {});
    const rss = await processRssBytes(pid);
    if (rss !== undefined) samples.push(rss);
  }
  return samples;
}

function busyShare(before: MachineCpu | undefined, after: MachineCpu | undefined): number | undefined {
  if (!before || !after || after.total <= before.total) return undefined;
  return (after.busy - before.busy) / (after.total - before.total);
}
