/**
 * `npm run bench -- engine`: the engine issue's benchmark, in one process and one run (no services needed).
 *
 * 1. Per 20 ms frame, µs of CPU: inbound carrier audio (μ-law decode + 8→16 kHz + energy VAD) and outbound
 *    (16→8 kHz + μ-law encode + the paced output), beside a plain μ-law decode loop.
 * 2. The engine's own latency per turn: calls through the public engine (dispatch, in-memory transport, STT, LLM
 *    and TTS workers on the in-process bus) with providers of fixed latency and callers speaking in real time;
 *    per turn, end-to-end minus endpointing minus provider time (turn-overhead.ts says exactly how).
 * 3. Per-call CPU at steady speech: for each number of concurrent calls, the process's CPU over a window while
 *    every caller converses, minus the same harness sending its frames nowhere, per call.
 *
 * Profile it with `node --cpu-prof --cpu-prof-dir=<dir> --import tsx bench/src/run.ts engine`.
 */
import { measureCases } from '../engine-audio/measure.ts';
import { machineFacts } from '../machine.ts';
import {
  EXIT_FAILED,
  EXIT_INTERRUPTED,
  EXIT_OK,
  EXIT_USAGE,
  type ExitCode,
  type Suite,
  type SuiteContext,
} from '../suite.ts';
import { callerAudio, type CallerAudio } from './caller-audio.ts';
import { spokenCallerAudio } from './spoken-audio.ts';
import { measureVadCosts } from './vad-costs.ts';
import { loadVoiceActivity, SileroModel, type VoiceActivitySource } from '@parley/engine';
import { ENDPOINTING_MS, type RigOptions } from './conversation-rig.ts';
import { CPU_WARMUP_SECONDS, measureIdleEngine, runCpu, type WindowMeasure } from './cpu-run.ts';
import { DEFAULT_LATENCIES } from './fixed-latency-providers.ts';
import { DEFAULT_CALLS, DEFAULT_TURNS, frameSecondsFor, parseEngineOptions, type BenchVad } from './engine-options.ts';
import { createFrameCases } from './frame-cases.ts';
import { runLatency, TURNS_PER_CALL } from './latency-run.ts';
import { buildReport, coreShare, cpuRow, formatReport, frameRows, latencySection, type CpuWindow } from './report.ts';

/** Unmeasured seconds per per-frame case first: V8 optimises the hot loops within the first few thousand frames. */
const FRAME_WARMUP_SECONDS = 1;

export const engineSuite: Suite = {
  name: 'engine',
  summary:
    'engine latency per turn (fixed-latency providers), per-call CPU at steady speech, µs per audio frame (no services needed)',
  options: {
    turns: {
      type: 'string',
      valueName: '<n>',
      description: `turns measured for the latency figures (default ${DEFAULT_TURNS}, ${TURNS_PER_CALL} per call)`,
    },
    calls: {
      type: 'string',
      valueName: '<n,…>',
      description: `concurrent calls of each CPU run (default ${DEFAULT_CALLS.join(',')})`,
    },
    stt: {
      type: 'string',
      valueName: '<mode>',
      description: 'batch (final after the end of utterance, default) or streaming (final during the silence)',
    },
    vad: {
      type: 'string',
      valueName: '<mode>',
      description: 'auto (Silero behind the gate when its model loads, as the engine role; default), silero or energy',
    },
  },
  run: runEngine,
};

function cpuWindow(measure: WindowMeasure): CpuWindow {
  const { counters, ...rest } = measure;
  return { ...rest, ...counters };
}

async function runEngine(context: SuiteContext): Promise<ExitCode> {
  const parsed = parseEngineOptions(context.extra);
  if (typeof parsed === 'string') {
    context.log(parsed);
    return EXIT_USAGE;
  }
  const { signal } = context;
  const { durationSeconds } = context.options;
  const machine = machineFacts();
  const incidents: string[] = [];
  const vad = await benchVoiceActivity(parsed.vad, context);
  if (typeof vad === 'number') return vad;
  const { audio, voiceActivity, frameModel } = vad;
  const rig: RigOptions = {
    latencies: DEFAULT_LATENCIES,
    stt: parsed.stt,
    audio,
    voiceActivity,
    incident: (line) => {
      incidents.push(line);
      context.log(`engine: ${line}`);
    },
  };

  const frameSeconds = frameSecondsFor(durationSeconds);
  const cases = createFrameCases(audio);
  context.log(`per-frame costs: ${cases.length} cases, ${FRAME_WARMUP_SECONDS + frameSeconds} s each…`);
  let timings;
  try {
    timings = await measureCases(cases, { durationSeconds: frameSeconds, warmupSeconds: FRAME_WARMUP_SECONDS, signal });
  } finally {
    for (const frameCase of cases) frameCase.close();
  }
  if (signal.aborted) return EXIT_INTERRUPTED;
  if (frameModel) {
    context.log(`per-frame costs of Silero behind the gate: 3 cases, ${frameSeconds} s each…`);
    timings.push(...(await measureVadCosts(frameModel, audio, frameSeconds, signal)));
    if (signal.aborted) return EXIT_INTERRUPTED;
  }
  const frames = frameRows(timings);
  const baselineMicros = frames.find((f) => f.baseline)?.meanMicros ?? Number.NaN;

  const latencyCalls = Math.ceil(parsed.turns / TURNS_PER_CALL);
  context.log(`latency: ${parsed.turns} turn(s) over ${latencyCalls} call(s), in real time…`);
  const turns = await runLatency({ ...rig, turns: parsed.turns, signal });
  if (signal.aborted) return EXIT_INTERRUPTED;
  const latency = latencySection(turns);

  let idleEngineShare: number | undefined;
  if (parsed.calls.length > 0) {
    context.log(`CPU: the engine with no calls (${durationSeconds} s window)…`);
    idleEngineShare = coreShare(await measureIdleEngine({ ...rig, seconds: durationSeconds, signal }));
    if (signal.aborted) return EXIT_INTERRUPTED;
  }
  const cpu = [];
  for (const calls of parsed.calls) {
    context.log(
      `CPU: harness alone, then ${calls} calls (${CPU_WARMUP_SECONDS} s warm-up, ${durationSeconds} s window)…`,
    );
    const result = await runCpu({ ...rig, calls, seconds: durationSeconds, signal });
    if (signal.aborted) return EXIT_INTERRUPTED;
    cpu.push(
      cpuRow(
        { calls, harness: cpuWindow(result.harness), engine: cpuWindow(result.engine), records: result.turns.records },
        baselineMicros,
        idleEngineShare ?? 0,
      ),
    );
  }

  const report = buildReport(
    machine,
    {
      durationSeconds,
      frameSeconds,
      frameWarmupSeconds: FRAME_WARMUP_SECONDS,
      cpuWarmupSeconds: CPU_WARMUP_SECONDS,
      stt: parsed.stt,
      vad: voiceActivity.kind,
      latencies: DEFAULT_LATENCIES,
      endpointingMs: ENDPOINTING_MS,
      calls: parsed.calls,
    },
    frames,
    latency,
    cpu,
    idleEngineShare,
    incidents,
  );
  await voiceActivity.close();
  await frameModel?.close();
  context.out(formatReport(report));
  if (context.options.json) context.out(JSON.stringify(report));
  return report.failures.length ? EXIT_FAILED : EXIT_OK;
}

/**
 * The engine's voice activity as the engine role would load it, and the callers' audio to go with it: Silero only
 * takes real speech for speech, so its callers speak with flite's voice.
 */
async function benchVoiceActivity(
  mode: BenchVad,
  context: SuiteContext,
): Promise<{ audio: CallerAudio; voiceActivity: VoiceActivitySource; frameModel?: SileroModel } | ExitCode> {
  const synthetic = callerAudio();
  let source: VoiceActivitySource;
  try {
    source = await loadVoiceActivity({ vad: mode }, (event, detail) =>
      context.log(`engine: ${event} ${JSON.stringify(detail ?? {})}`),
    );
  } catch (error) {
    context.log(String(error));
    return EXIT_USAGE;
  }
  if (source.kind === 'energy') return { audio: synthetic, voiceActivity: source };
  try {
    const audio = await spokenCallerAudio(synthetic);
    // The per-frame rows measure the same model the calls use, through a session of their own.
    return { audio, voiceActivity: source, frameModel: await SileroModel.load() };
  } catch (error) {
    context.log(`Silero needs callers with real speech, and flite could not make it: ${String(error)}`);
    await source.close();
    return EXIT_USAGE;
  }
}
