/**
 * The engine suite's report: per-frame audio costs beside the μ-law decode loop, the engine's own latency per
 * turn against its targets with the raw components beside it, and per-call CPU at steady speech for each number
 * of concurrent calls. A target missed is MISSED (a finding, exit 0); a run that lost turns or saw the engine fail
 * is FAILED (its figures measured something else).
 */
import { describeMachine, type MachineFacts } from '../machine.ts';
import { percentile } from '../percentiles.ts';
import { formatTable } from '../table.ts';
import type { CaseTiming } from '../engine-audio/measure.ts';
import type { FixedLatencies, SttMode } from './fixed-latency-providers.ts';
import {
  BREAKDOWN_FIELDS,
  breakDown,
  summarize,
  type Summary,
  type TurnBreakdown,
  type TurnRecord,
} from './turn-overhead.ts';

/** Engine issue target: the engine's own latency per turn, median. */
export const TARGET_OVERHEAD_P50_MS = 5;
/** Engine issue target: the engine's own latency per turn, 99th percentile. */
export const TARGET_OVERHEAD_P99_MS = 20;
/** Engine issue target: one call's engine CPU at steady speech, as a share of one core (0.3 %). */
export const TARGET_CALL_CORE_SHARE = 0.003;
/** Real time per frame, µs: a share of a core is µs per frame over this. */
export const FRAME_MICROS = 20_000;
/**
 * A 1-minute load average at or above this share of the cores when the run starts means other work competed for
 * the CPU; the report then says its figures are noisy.
 */
export const BUSY_LOAD_PER_CORE = 0.5;

export interface EngineSettings {
  /** Seconds of each CPU window. */
  durationSeconds: number;
  /** Measured seconds per per-frame case, and their warm-up. */
  frameSeconds: number;
  frameWarmupSeconds: number;
  cpuWarmupSeconds: number;
  stt: SttMode;
  /** The calls' voice activity detection: Silero behind the energy gate, or the gate alone. */
  vad: 'silero' | 'energy';
  latencies: FixedLatencies;
  endpointingMs: number;
  /** Concurrent calls of each CPU run. */
  calls: number[];
}

export interface FrameRow {
  name: string;
  work: string;
  baseline: boolean;
  frames: number;
  meanMicros: number;
  p50Micros: number;
  p99Micros: number;
  /** mean ÷ the baseline's mean. */
  ratio: number;
}

/** The figures of the latency run as the runner hands them over. */
export interface LatencyInput {
  calls: number;
  utterances: number;
  timeouts: number;
  unmatched: number;
  records: TurnRecord[];
}

export type ComponentName = keyof TurnBreakdown;

export interface LatencySection {
  calls: number;
  utterances: number;
  timeouts: number;
  unmatched: number;
  components: Record<ComponentName, Summary>;
  overheadP50Met: boolean;
  overheadP99Met: boolean;
  turns: TurnBreakdown[];
}

/** One CPU window as the runner measured it. */
export interface CpuWindow {
  wallMs: number;
  cpuMicros: number;
  loopUtilization: number;
  loopDelayP99Ms: number;
  framesSent: number;
  voicedFramesSent: number;
  framesHeard: number;
  replies: number;
  timeouts: number;
}

export interface CpuInput {
  calls: number;
  harness: CpuWindow;
  engine: CpuWindow;
  /** Every turn of the run, for the overhead under this load. */
  records: TurnRecord[];
}

export interface CpuRow {
  calls: number;
  windowSeconds: number;
  /** The whole process over the window, share of one core. */
  processShare: number;
  /** The harness alone (same callers, frames to nowhere), share of one core. */
  harnessShare: number;
  /** (process − harness) ÷ calls: one call's engine CPU, share of one core. */
  perCallShare: number;
  /** The same as µs of CPU per 20 ms of call. */
  perCallMicros: number;
  /** (process − harness − idle engine) ÷ calls: what one more call costs, its share of the fixed cost left out. */
  marginalShare: number;
  /** Main-thread busy time beyond the harness's, per call, µs per 20 ms: the engine's own work without wake-ups. */
  busyMicros: number;
  /** perCallMicros ÷ the μ-law decode loop's µs per frame. */
  ratio: number;
  met: boolean;
  /** Replies that started during the window. */
  replies: number;
  timeouts: number;
  /** Share of the window's 20 ms slots in which the agent sent a frame, per call. */
  agentTalkShare: number;
  /** Share of the callers' frames that were speech. */
  callerVoicedShare: number;
  loopUtilization: number;
  loopDelayP99Ms: number;
  overhead: Summary;
}

export interface EngineReport {
  suite: 'engine';
  machine: MachineFacts;
  settings: EngineSettings;
  frames: FrameRow[];
  latency: LatencySection;
  cpu: CpuRow[];
  /** The engine with no calls (pacing clock ticking, workers heartbeating), share of one core. */
  idleEngineShare: number | undefined;
  /** The inbound and outbound rows together: what a G.711 carrier call adds at most, µs per 20 ms. */
  carrierMicros: number | undefined;
  /** Why the figures do not count; empty when they do. */
  failures: string[];
  missed: string[];
}

export function frameRows(timings: readonly CaseTiming[]): FrameRow[] {
  const baseline = timings.find((t) => t.baseline);
  return timings.map((t) => ({
    name: t.name,
    work: t.work,
    baseline: t.baseline,
    frames: t.frames,
    meanMicros: t.meanMicros,
    p50Micros: percentile(t.samples, 50),
    p99Micros: percentile(t.samples, 99),
    ratio: baseline && baseline.meanMicros > 0 ? t.meanMicros / baseline.meanMicros : Number.NaN,
  }));
}

function componentSummaries(turns: readonly TurnBreakdown[]): Record<ComponentName, Summary> {
  return Object.fromEntries(BREAKDOWN_FIELDS.map((name) => [name, summarize(turns.map((t) => t[name]))])) as Record<
    ComponentName,
    Summary
  >;
}

export function latencySection(input: LatencyInput): LatencySection {
  const turns = input.records.map(breakDown);
  const components = componentSummaries(turns);
  return {
    calls: input.calls,
    utterances: input.utterances,
    timeouts: input.timeouts,
    unmatched: input.unmatched,
    components,
    overheadP50Met: components.overheadMs.p50 <= TARGET_OVERHEAD_P50_MS,
    overheadP99Met: components.overheadMs.p99 <= TARGET_OVERHEAD_P99_MS,
    turns,
  };
}

/** A window's CPU as a share of one core. */
export function coreShare(window: Pick<CpuWindow, 'cpuMicros' | 'wallMs'>): number {
  return window.cpuMicros / (window.wallMs * 1000);
}

/**
 * @param baselineMicros the μ-law decode loop's µs per frame, measured in the same run
 * @param idleShare the engine with no calls, share of one core (0 when not measured)
 */
export function cpuRow(input: CpuInput, baselineMicros: number, idleShare: number): CpuRow {
  const { engine, harness, calls } = input;
  const processShare = coreShare(engine);
  const harnessShare = coreShare(harness);
  const perCallShare = (processShare - harnessShare) / calls;
  const perCallMicros = perCallShare * FRAME_MICROS;
  const slots = (engine.wallMs / 20) * calls;
  return {
    calls,
    windowSeconds: engine.wallMs / 1000,
    processShare,
    harnessShare,
    perCallShare,
    perCallMicros,
    marginalShare: (processShare - harnessShare - idleShare) / calls,
    busyMicros: ((engine.loopUtilization - harness.loopUtilization) / calls) * FRAME_MICROS,
    ratio: baselineMicros > 0 ? perCallMicros / baselineMicros : Number.NaN,
    met: perCallShare <= TARGET_CALL_CORE_SHARE,
    replies: engine.replies,
    timeouts: engine.timeouts,
    agentTalkShare: slots > 0 ? engine.framesHeard / slots : Number.NaN,
    callerVoicedShare: engine.framesSent > 0 ? engine.voicedFramesSent / engine.framesSent : Number.NaN,
    loopUtilization: engine.loopUtilization,
    loopDelayP99Ms: engine.loopDelayP99Ms,
    overhead: summarize(input.records.map((r) => breakDown(r).overheadMs)),
  };
}

export function buildReport(
  machine: MachineFacts,
  settings: EngineSettings,
  frames: FrameRow[],
  latency: LatencySection,
  cpu: CpuRow[],
  idleEngineShare: number | undefined,
  incidents: readonly string[],
): EngineReport {
  const inbound = frames.find((f) => f.name.startsWith('inbound'));
  const outbound = frames.find((f) => f.name.startsWith('outbound'));
  const failures: string[] = [...incidents.map((i) => `engine: ${i}`)];
  if (latency.components.overheadMs.n === 0) failures.push('latency: no turn produced a complete latency report');
  if (latency.timeouts > 0)
    failures.push(`latency: ${latency.timeouts} of ${latency.utterances} utterances got no reply`);
  if (latency.unmatched > 0) failures.push(`latency: ${latency.unmatched} reported turns had no stamps`);
  for (const row of cpu) {
    if (row.timeouts > 0) failures.push(`cpu ${row.calls} calls: ${row.timeouts} utterances got no reply`);
    if (!(row.agentTalkShare > 0)) failures.push(`cpu ${row.calls} calls: the agents never talked in the window`);
  }
  const missed: string[] = [];
  const overhead = latency.components.overheadMs;
  if (!latency.overheadP50Met) missed.push(`engine latency p50 ${ms(overhead.p50)} ms > ${TARGET_OVERHEAD_P50_MS} ms`);
  if (!latency.overheadP99Met) missed.push(`engine latency p99 ${ms(overhead.p99)} ms > ${TARGET_OVERHEAD_P99_MS} ms`);
  for (const row of cpu.filter((r) => !r.met)) {
    missed.push(
      `CPU per call at ${row.calls} calls ${percent(row.perCallShare)} of a core > ${percent(TARGET_CALL_CORE_SHARE)}`,
    );
  }
  return {
    suite: 'engine',
    machine,
    settings,
    frames,
    latency,
    cpu,
    idleEngineShare,
    carrierMicros: inbound && outbound ? inbound.meanMicros + outbound.meanMicros : undefined,
    failures,
    missed,
  };
}

/** What each latency row shows, in order, and what the fixed providers make it at least (the "set" column). */
function latencyRows(settings: EngineSettings): [string, ComponentName, number | undefined][] {
  const { latencies, endpointingMs, stt } = settings;
  const endpointing = endpointingMs + (stt === 'batch' ? latencies.sttFinalMs : 0);
  return [
    ['endpointing (report)', 'endpointingMs', endpointing],
    ['STT final (report)', 'sttFinalMs', stt === 'batch' ? endpointing : latencies.sttFinalMs],
    ['LLM first token (report)', 'llmFirstTokenMs', latencies.llmFirstTokenMs],
    ['TTS first byte (report)', 'ttsFirstByteMs', latencies.ttsFirstByteMs],
    ['end-to-end (report)', 'endToEndMs', endpointing + latencies.llmFirstTokenMs + latencies.ttsFirstByteMs],
    [
      'end-to-end, seen by the caller',
      'callerEndToEndMs',
      endpointing + latencies.llmFirstTokenMs + latencies.ttsFirstByteMs,
    ],
    ['provider: LLM to first clause', 'providerLlmMs', latencies.llmFirstTokenMs],
    ['provider: TTS to first audio', 'providerTtsMs', latencies.ttsFirstByteMs],
    ['hop: turn end → LLM request', 'turnToLlmMs', undefined],
    ['hop: first clause → TTS request', 'clauseToTtsMs', undefined],
    ['hop: TTS first audio → frame out', 'audioToFrameMs', undefined],
    ['  of which the wait for the 20 ms tick', 'pacingWaitMs', undefined],
    ['ENGINE OVERHEAD', 'overheadMs', undefined],
  ];
}

export function formatReport(report: EngineReport): string {
  const { settings, latency } = report;
  const l = settings.latencies;
  const lines = [
    "engine: per-frame audio cost, the engine's own latency per turn, and per-call CPU at steady speech, in one run",
    `machine: ${describeMachine(report.machine)}`,
    `fake providers: STT final ${l.sttFinalMs} ms after ${settings.stt === 'batch' ? 'the end of utterance (batch)' : 'the last voiced audio (streaming)'}; ` +
      `LLM first token (a whole first clause) after ${l.llmFirstTokenMs} ms, then a token every ${l.llmTokenIntervalMs} ms; ` +
      `TTS first audio after ${l.ttsFirstByteMs} ms, then 100 ms of 16 kHz audio every 20 ms; endpointing ${settings.endpointingMs} ms of silence`,
    `voice activity: ${settings.vad === 'silero' ? "Silero v5 behind the energy gate; callers speak with flite's voice" : 'the energy gate alone; callers speak a synthetic voice'}`,
    '',
    `per 20 ms frame, µs of CPU (${settings.frameSeconds} s per case after ${settings.frameWarmupSeconds} s warm-up, cases interleaved):`,
    formatTable(
      [
        ['case', 'mean', 'p50', 'p99', '× baseline', 'one step'],
        ...report.frames.map((f) => [
          f.name,
          micros(f.meanMicros),
          micros(f.p50Micros),
          micros(f.p99Micros),
          ratio(f.ratio),
          f.work,
        ]),
      ],
      ['left', 'right', 'right', 'right', 'right', 'left'],
    ),
    '',
    `latency per turn, ms (${plural(latency.components.overheadMs.n, 'turn')} over ${plural(latency.calls, 'call')} at once, caller audio in real time; ` +
      `"set" is what the fake providers and endpointing account for):`,
    formatTable(
      [
        ['', 'set', 'mean', 'p50', 'p99', 'max'],
        ...latencyRows(settings).map(([label, name, set]) => {
          const s = latency.components[name];
          return [label, set === undefined ? '' : String(set), ms(s.mean), ms(s.p50), ms(s.p99), ms(s.max)];
        }),
      ],
      ['left', 'right', 'right', 'right', 'right', 'right'],
    ),
    'engine overhead = end-to-end − endpointing − provider LLM time to first clause − provider TTS time to first audio ' +
      '(report fields, provider times stamped inside the fakes); the STT delay sits inside endpointing',
    `engine latency per turn: p50 ${ms(latency.components.overheadMs.p50)} ms (target ≤ ${TARGET_OVERHEAD_P50_MS} ms: ${verdict(latency.overheadP50Met)}), ` +
      `p99 ${ms(latency.components.overheadMs.p99)} ms (target ≤ ${TARGET_OVERHEAD_P99_MS} ms: ${verdict(latency.overheadP99Met)})` +
      (latency.components.overheadMs.n < 100
        ? `; with ${plural(latency.components.overheadMs.n, 'turn')} the p99 is the slowest turn`
        : ''),
    '',
    `per-call CPU at steady speech, shares of one core (${settings.durationSeconds} s windows; calls measured after ${settings.cpuWarmupSeconds} s ` +
      'warm-up; harness = the same callers sending their frames nowhere, measured just before):',
    formatTable(
      [
        [
          'calls',
          'process',
          'harness',
          'per call',
          'µs/20 ms',
          '× μ-law loop',
          `≤ ${percent(TARGET_CALL_CORE_SHARE)}`,
          'marginal',
          'busy µs/20 ms',
          'replies',
          'agent talks',
          'caller speaks',
          'loop busy',
          'loop delay p99',
          'overhead p50',
          'p99',
        ],
        ...report.cpu.map((r) => [
          String(r.calls),
          percent(r.processShare),
          percent(r.harnessShare),
          percent(r.perCallShare),
          micros(r.perCallMicros),
          ratio(r.ratio),
          verdict(r.met),
          percent(r.marginalShare),
          micros(r.busyMicros),
          String(r.replies),
          share(r.agentTalkShare),
          share(r.callerVoicedShare),
          share(r.loopUtilization),
          withUnit(ms(r.loopDelayP99Ms), 'ms'),
          withUnit(ms(r.overhead.p50), 'ms'),
          withUnit(ms(r.overhead.p99), 'ms'),
        ]),
      ],
      [
        'right',
        'right',
        'right',
        'right',
        'right',
        'right',
        'left',
        'right',
        'right',
        'right',
        'right',
        'right',
        'right',
        'right',
        'right',
        'right',
      ],
    ),
    'per call = (process − harness) ÷ calls: sessions, in-memory transports, the bus, the STT/LLM/TTS workers and the fake providers ' +
      '(fixed timers, a precomputed tone), all in this one process as embedded mode runs them; marginal = the same less the idle engine; ' +
      "busy = main-thread time beyond the harness's, per call (the engine's own work, without the cost of waking up).",
  ];
  if (report.idleEngineShare !== undefined) {
    lines.push(
      `idle engine (no calls; the pacing clock ticking, the workers heartbeating): ${percent(report.idleEngineShare)} of a core, ` +
        'shared by the calls of a run',
    );
  }
  if (report.carrierMicros !== undefined) {
    lines.push(
      `a G.711 carrier call adds at most the inbound + outbound rows: ${micros(report.carrierMicros)} µs per 20 ms ` +
        `= ${percent(report.carrierMicros / FRAME_MICROS)} of a core (the memory transport hands the session 16 kHz PCM).`,
    );
  }
  if (report.machine.loadAverage1m >= BUSY_LOAD_PER_CORE * report.machine.cores) {
    lines.push(
      `note: load ${report.machine.loadAverage1m} on ${report.machine.cores} cores when the run started: ` +
        'other work competed for the CPU, so these figures are noisy',
    );
  }
  if (report.failures.length)
    lines.push('FAILED: the run went wrong, so its figures do not count:', ...report.failures.map((f) => `  ${f}`));
  if (report.missed.length)
    lines.push(
      `MISSED ${report.missed.length} target${report.missed.length > 1 ? 's' : ''}:`,
      ...report.missed.map((m) => `  ${m}`),
    );
  if (!report.failures.length && !report.missed.length) lines.push('all targets met');
  return lines.join('\n');
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function withUnit(figure: string, unit: string): string {
  return figure === '–' ? figure : `${figure} ${unit}`;
}

function verdict(met: boolean): string {
  return met ? 'met' : 'MISSED';
}

function ms(value: number): string {
  if (!Number.isFinite(value)) return '–';
  return Math.abs(value) < 10 ? value.toFixed(2) : value.toFixed(1);
}

function micros(value: number): string {
  if (!Number.isFinite(value)) return '–';
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

function ratio(value: number): string {
  return Number.isFinite(value) ? `${value < 10 ? value.toFixed(1) : Math.round(value)}×` : '–';
}

/** A share of one core as a percentage, with enough digits for per-call figures around 0.3 %. */
function percent(value: number): string {
  if (!Number.isFinite(value)) return '–';
  const p = value * 100;
  return `${Math.abs(p) < 1 ? p.toFixed(3) : p.toFixed(1)} %`;
}

/** A 0–1 share as a whole percentage. */
function share(value: number): string {
  return Number.isFinite(value) ? `${Math.round(value * 100)} %` : '–';
}
