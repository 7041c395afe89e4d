/**
 * A run's figures from what its processes handed back: the callers' per-call windows pooled per carrier (turn,
 * greeting and barge-in latency, audible gaps), both sides' message counts matched call by call (delivery), each
 * process's CPU, event loop and memory over the window, and the engine's own latency reports (where a turn's time
 * goes inside the engine). All percentiles are nearest-rank over the raw samples.
 */
import type { LatencyReport } from '@parley/engine/protocol';
import { percentile } from '../percentiles.ts';
import type { SimCarrier } from '../carrier-sim/index.ts';
import type { CallWindow } from './call-meter.ts';
import type { CallerStreamEnd, EngineStreamEnd, ProcessReading } from './messages.ts';
import type { RunRaw } from './run-once.ts';

/** A call answering fewer of its utterances than this share gave too little output (a dead server must not look good). */
export const MIN_ANSWERED_SHARE = 0.9;
const MIB = 2 ** 20;

export interface Spread {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function spread(values: readonly number[]): Spread {
  const sorted = Float64Array.from(values.filter((v) => Number.isFinite(v))).sort();
  const n = sorted.length;
  if (n === 0) return { n, p50: Number.NaN, p90: Number.NaN, p99: Number.NaN, max: Number.NaN };
  return {
    n,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[n - 1]!,
  };
}

export interface CarrierFigures {
  calls: number;
  /** End of caller speech → first agent audio, at the caller. */
  turn: Spread;
  /** The same less the providers' configured time: Parley's own share (with the network and the carrier's side). */
  parleyTurn: Spread;
  /** Stream start → first agent audio. */
  greeting: Spread;
  /** Caller speech start → the last agent audio received. */
  bargeStop: Spread;
  /** Caller speech start → the clear (the engine's decision, as the carrier sees it). */
  bargeDecision: Spread;
  /** The clear → the last agent audio received. */
  bargeAfterClear: Spread;
  messagesAfterClear: number;
  /** Lateness of each agent frame past its 20 ms cadence while the agent speaks. */
  gaps: Spread;
  utterances: number;
  answered: number;
}

export interface Delivery {
  /** Agent audio messages the engine sent, dropped (the far end stopped reading), and the carriers received. */
  agentSent: number;
  agentDropped: number;
  agentReceived: number;
  /** Caller audio messages the carriers sent, the engine took, and the engine's session dropped for falling behind. */
  callerSent: number;
  callerTaken: number;
  callerDropped: number;
  /** Calls whose two sides disagree, or whose engine side never reported its stream's end. */
  callsShort: number;
  /** Messages the carriers' protocol check refused. */
  violations: number;
}

export interface ProcessFigures {
  /** CPU over the window as a share of one core (every thread). */
  coreShare: number;
  /** Share of the window the event loop was busy. */
  loopUtilization: number;
  loopDelayP99Ms: number;
}

/** Medians and tails of the engine's own per-turn latency reports, ms. */
export interface EngineBreakdown {
  turns: number;
  endToEnd: Spread;
  endpointing: Spread;
  sttFinal: Spread;
  llmFirstToken: Spread;
  ttsFirstByte: Spread;
  /** endToEnd − endpointing − llmFirstToken − ttsFirstByte: hand-offs inside the engine, and the wait to send. */
  engineHops: Spread;
  greeting: Spread;
}

export interface RunFigures {
  calls: number;
  connected: number;
  failures: string[];
  windowSeconds: number;
  byCarrier: Partial<Record<SimCarrier, CarrierFigures>>;
  all: CarrierFigures;
  /** The lowest share of its utterances any call answered, and the calls under MIN_ANSWERED_SHARE. */
  worstAnsweredShare: number;
  quietCalls: number;
  delivery: Delivery;
  engine: ProcessFigures & {
    /** Engine CPU per second of call, ms. */
    cpuMsPerCallSecond: number;
    idleRssMiB: number;
    windowRssMiB: number;
    /** (window RSS − idle RSS) ÷ calls. */
    rssPerCallMiB: number;
  };
  callers: ProcessFigures;
  natsCoreShare: number | undefined;
  machineBusyShare: number | undefined;
  breakdown: EngineBreakdown;
  /** How late the fake providers' own timers fired (they share the engine's event loop), ms per turn. */
  providerLate: { llm: Spread; tts: Spread };
  incidents: Record<string, { count: number; example: string }>;
}

export function processFigures(before: ProcessReading, after: ProcessReading): ProcessFigures {
  const wallMs = after.at - before.at;
  const active = after.loopActiveMs - before.loopActiveMs;
  const idle = after.loopIdleMs - before.loopIdleMs;
  return {
    coreShare: wallMs > 0 ? (after.cpuMicros - before.cpuMicros) / 1000 / wallMs : Number.NaN,
    loopUtilization: active + idle > 0 ? active / (active + idle) : Number.NaN,
    loopDelayP99Ms: after.loopDelayP99Ms,
  };
}

export function carrierFigures(windows: readonly CallWindow[], providerMs: number): CarrierFigures {
  const all = <T>(pick: (w: CallWindow) => readonly T[]) => windows.flatMap(pick);
  const turns = all((w) => w.turnMs);
  const barges = all((w) => w.bargeIns);
  return {
    calls: windows.length,
    turn: spread(turns),
    parleyTurn: spread(turns.map((t) => t - providerMs)),
    greeting: spread(windows.flatMap((w) => (w.greetingMs === undefined ? [] : [w.greetingMs]))),
    bargeStop: spread(barges.map((b) => b.stopMs)),
    bargeDecision: spread(barges.map((b) => b.decisionMs)),
    bargeAfterClear: spread(barges.map((b) => b.afterClearMs)),
    messagesAfterClear: barges.reduce((sum, b) => sum + b.messagesAfterClear, 0),
    gaps: spread(all((w) => w.gapsMs)),
    utterances: windows.reduce((sum, w) => sum + w.utterances, 0),
    answered: windows.reduce((sum, w) => sum + w.answered, 0),
  };
}

/** Both sides' counts, call by call. A call the engine never reported on is short by all it should have carried. */
export function delivery(callers: readonly CallerStreamEnd[], engine: readonly EngineStreamEnd[]): Delivery {
  const byCall = new Map(engine.map((e) => [e.callId, e]));
  const total: Delivery = {
    agentSent: 0,
    agentDropped: 0,
    agentReceived: 0,
    callerSent: 0,
    callerTaken: 0,
    callerDropped: 0,
    callsShort: 0,
    violations: 0,
  };
  for (const caller of callers) {
    const side = byCall.get(caller.callId);
    total.agentReceived += caller.receivedMessages;
    total.callerSent += caller.sentMessages;
    total.violations += caller.violations;
    if (!side) {
      total.callsShort += 1;
      continue;
    }
    total.agentSent += side.sentPayloads;
    total.agentDropped += side.droppedPayloads;
    total.callerTaken += side.media;
    total.callerDropped += side.droppedFrames;
    const whole =
      side.sentPayloads === caller.receivedMessages &&
      side.droppedPayloads === 0 &&
      side.media === caller.sentMessages &&
      side.droppedFrames === 0;
    if (!whole) total.callsShort += 1;
  }
  return total;
}

export function engineBreakdown(reports: readonly (LatencyReport | undefined)[]): EngineBreakdown {
  const turns = reports.flatMap((r) => r?.turns ?? []);
  const pick = (f: (t: (typeof turns)[number]) => number | undefined) => spread(turns.map((t) => f(t) ?? Number.NaN));
  return {
    turns: turns.length,
    endToEnd: pick((t) => t.endToEndMs),
    endpointing: pick((t) => t.endpointingMs),
    sttFinal: pick((t) => t.sttFinalMs),
    llmFirstToken: pick((t) => t.llmFirstTokenMs),
    ttsFirstByte: pick((t) => t.ttsFirstByteMs),
    engineHops: pick((t) =>
      t.endToEndMs === undefined || t.llmFirstTokenMs === undefined || t.ttsFirstByteMs === undefined
        ? undefined
        : t.endToEndMs - t.endpointingMs - t.llmFirstTokenMs - t.ttsFirstByteMs,
    ),
    greeting: spread(reports.flatMap((r) => (r?.greetingMs === undefined ? [] : [r.greetingMs]))),
  };
}

export function runFigures(raw: RunRaw, providerMs: number): RunFigures {
  const windowSeconds = raw.windowMs / 1000;
  const carriers = [...new Set(raw.windows.map((w) => w.carrier))];
  const byCarrier: Partial<Record<SimCarrier, CarrierFigures>> = {};
  for (const carrier of carriers)
    byCarrier[carrier] = carrierFigures(
      raw.windows.filter((w) => w.carrier === carrier).map((w) => w.window),
      providerMs,
    );
  const shares = raw.windows.map((w) => (w.window.utterances === 0 ? 0 : w.window.answered / w.window.utterances));
  const engine = processFigures(raw.engine.before, raw.engine.after);
  const engineCpuMs = (raw.engine.after.cpuMicros - raw.engine.before.cpuMicros) / 1000;
  const windowRss = raw.windowRssBytes.length
    ? raw.windowRssBytes.reduce((a, b) => a + b, 0) / raw.windowRssBytes.length
    : raw.engine.after.rssBytes;
  const wallSeconds = (raw.engine.after.at - raw.engine.before.at) / 1000;
  return {
    calls: raw.calls,
    connected: raw.connected,
    failures: raw.failures,
    windowSeconds,
    byCarrier,
    all: carrierFigures(
      raw.windows.map((w) => w.window),
      providerMs,
    ),
    worstAnsweredShare: shares.length ? Math.min(...shares) : 0,
    quietCalls: shares.filter((s) => s < MIN_ANSWERED_SHARE).length + (raw.calls - raw.windows.length),
    delivery: delivery(raw.callerEnds, raw.engineEnds),
    engine: {
      ...engine,
      cpuMsPerCallSecond: raw.connected > 0 ? engineCpuMs / (raw.connected * wallSeconds) : Number.NaN,
      idleRssMiB: raw.idleRssBytes / MIB,
      windowRssMiB: windowRss / MIB,
      rssPerCallMiB: raw.connected > 0 ? (windowRss - raw.idleRssBytes) / MIB / raw.connected : Number.NaN,
    },
    callers: processFigures(raw.callers.before, raw.callers.after),
    natsCoreShare: raw.natsCpuMs === undefined ? undefined : raw.natsCpuMs / raw.windowMs,
    machineBusyShare: raw.machineBusyShare,
    breakdown: engineBreakdown(raw.callerEnds.map((c) => c.latency)),
    providerLate: { llm: spread(raw.llmLateMs), tts: spread(raw.ttsLateMs) },
    incidents: raw.incidents,
  };
}

/** Least-squares slope of y on x (NaN with fewer than two distinct x). */
export function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length;
  if (n < 2) return Number.NaN;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  if (sxx === 0) return Number.NaN;
  return points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0) / sxx;
}
