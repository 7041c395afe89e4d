/**
 * `npm run bench -- calls`: the concurrent-call load test (issue 8). The bench orchestrates; the carriers' side of
 * every call runs in one child process (caller-process.ts) and, for each run, the engine with its fake-provider
 * workers in another (engine-process.ts), over NATS (NATS_URL, default nats://127.0.0.1:4222). Levels of
 * concurrency are stepped up, each run in turn, until a run fails a gate (gates.ts); the ceiling is the highest
 * level whose every run passed. The report and its charts are written to bench/results/<date>-<name>.md (+ .svg).
 *
 * Profile the engine with `--cpu-prof <dir>`: one more run at the ceiling, its engine under `node --cpu-prof`.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
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
import { CALL_LATENCIES, providerMs, REPLY_EXTRA_TOKENS, TTS_LEAD_MS } from './call-providers.ts';
import { runFigures } from './call-metrics.ts';
import { CALLS_OPTIONS, parseCallsOptions, type CallsOptions } from './calls-options.ts';
import { ENDPOINTING_MS, GREETING, INTER_UTTERANCE_MS } from './caller-line.ts';
import { cpuChart, gapChart, latencyCdfChart } from './charts.ts';
import { ChildLink } from './child-link.ts';
import { readMainProfile, summariseProfile } from './cpu-profile.ts';
import { ceilingOf, evaluateGates, passed, type LevelOutcome, type RunOutcome } from './gates.ts';
import type { FromCaller, ToCaller } from './messages.ts';
import { figuresLevel, formatReport, type CallsReport } from './report.ts';
import { runOnce, type RunRaw, type RunSettings } from './run-once.ts';
import { CALLER_SENTENCE } from './speech-clip.ts';
import { NatsBus } from '@parley/engine/bus';
import { runBackchannelSet, type BackchannelFigures } from './backchannel-probe.ts';

const CALLER_ENTRY = fileURLToPath(new URL('./caller-process.ts', import.meta.url));
const RESULTS_DIR = fileURLToPath(new URL('../../results', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** Making the recording with flite and connecting to NATS. */
const CALLERS_PREPARE_TIMEOUT_MS = 60_000;
/** Each call rings this long, ms: the engine synthesises the 1.4 s greeting (at real-time rate) meanwhile. */
export const RING_MS = 2_000;
/** Functions and areas listed from the engine's CPU profile. */
const PROFILE_ROWS = 20;
/** Calls are placed this far apart, ms: 100 calls a second, as a burst of arrivals. */
export const CALL_SPACING_MS = 10;

export const callsSuite: Suite = {
  name: 'calls',
  summary:
    'concurrent calls over carrier media streams: ceiling under the gates, caller-side latency, CPU and memory per call (needs NATS)',
  options: CALLS_OPTIONS,
  run: runCalls,
};

async function runCalls(context: SuiteContext): Promise<ExitCode> {
  const options = parseCallsOptions(context.extra, path.relative(process.cwd(), RESULTS_DIR) || RESULTS_DIR);
  if (typeof options === 'string') {
    context.log(options);
    return EXIT_USAGE;
  }
  const natsUrl = process.env.NATS_URL || 'nats://127.0.0.1:4222';
  const machine = machineFacts();
  const { signal } = context;
  const callers = new ChildLink<ToCaller, FromCaller>('callers process', CALLER_ENTRY);
  const levels: LevelOutcome[] = [];
  let vad = 'unknown';
  let profile: CallsReport['profile'];
  let backchannel: BackchannelFigures | undefined;
  let clip: { clipMs: number; longestPauseMs: number } = { clipMs: Number.NaN, longestPauseMs: Number.NaN };
  try {
    clip = await callers.request({ type: 'prepare', natsUrl }, 'prepared', CALLERS_PREPARE_TIMEOUT_MS);
    context.log(`callers ready: a ${(clip.clipMs / 1000).toFixed(2)} s sentence; NATS at ${natsUrl}`);
    const settings = (calls: number, engineFlags: string[] = []): RunSettings => ({
      natsUrl,
      calls,
      carriers: options.carriers,
      warmupSeconds: options.warmupSeconds,
      windowSeconds: options.windowSeconds,
      spacingMs: CALL_SPACING_MS,
      ringMs: RING_MS,
      engineFlags,
      signal,
      log: context.log,
    });

    for (const calls of options.levels) {
      const level: LevelOutcome = { calls, runs: [], errors: [], pass: true };
      levels.push(level);
      for (let run = 1; run <= options.runs && !signal.aborted; run++) {
        context.log(`${calls} calls, run ${run}/${options.runs}:`);
        let raw: RunRaw;
        try {
          raw = await runOnce(callers, settings(calls));
        } catch (error) {
          // A run that broke under load (a process gave up, a reply never came) fails its level like a gate does.
          if (signal.aborted) break;
          level.errors.push(`run ${run}: ${error instanceof Error ? error.message : String(error)}`);
          context.log(`  FAIL the run broke: ${level.errors.at(-1)}`);
          break;
        }
        vad = raw.vad;
        if (signal.aborted) break;
        const outcome = outcomeOf(raw);
        level.runs.push(outcome);
        context.log(`  ${outcome.gates.map((g) => `${g.pass ? 'ok' : 'FAIL'} ${g.gate}: ${g.value}`).join('; ')}`);
        if (!passed(outcome.gates)) break;
      }
      level.pass =
        level.errors.length === 0 && level.runs.length === options.runs && level.runs.every((r) => passed(r.gates));
      if (!level.pass || signal.aborted) break;
    }
    if (levels.at(-1)?.runs.length === 0 && levels.at(-1)?.errors.length === 0) levels.pop();

    if (options.cpuProfDir && !signal.aborted && levels.length) {
      const calls = figuresLevel(levels)!.calls;
      const dir = path.resolve(options.cpuProfDir, `calls-${calls}`);
      await rm(dir, { recursive: true, force: true });
      context.log(`profiling: one more run at ${calls} calls, the engine under --cpu-prof (${dir})…`);
      const raw = await runOnce(callers, settings(calls, ['--cpu-prof', `--cpu-prof-dir=${dir}`]));
      const main = await readMainProfile(dir);
      if (main)
        profile = {
          calls,
          summary: summariseProfile(main, PROFILE_ROWS, [raw.engine.before.monoMicros, raw.engine.after.monoMicros]),
        };
      else context.log('profiling: no profile was written');
    }
    if (!signal.aborted && levels.length) {
      context.log('backchannel set: "uh-huh", "okay", "yeah", "mm-hmm" over the agent…');
      const nats = await NatsBus.connect(natsUrl, { name: 'parley-bench-backchannels' });
      try {
        backchannel = await runBackchannelSet(nats, context.log);
      } catch (error) {
        context.log(`backchannel set broke: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        await nats.drain().catch(() => {});
      }
    }
  } catch (error) {
    if (!signal.aborted) {
      context.log(`calls: ${error instanceof Error ? error.message : String(error)}`);
      if (levels.every((l) => l.runs.length === 0)) return EXIT_FAILED;
    }
  } finally {
    await callers.close({ type: 'quit' });
  }
  if (levels.length === 0) return signal.aborted ? EXIT_INTERRUPTED : EXIT_FAILED;

  const report = await writeReport(
    options,
    {
      machine,
      versions: await versions(),
      settings: {
        command: `npm run bench -- calls ${process.argv.slice(3).join(' ')}`.trim(),
        levels: options.levels,
        runs: options.runs,
        warmupSeconds: options.warmupSeconds,
        windowSeconds: options.windowSeconds,
        carriers: options.carriers,
        latencies: CALL_LATENCIES,
        providerMs: providerMs(CALL_LATENCIES),
        extraTokens: REPLY_EXTRA_TOKENS.length,
        ttsLeadMs: TTS_LEAD_MS,
        endpointingMs: ENDPOINTING_MS,
        sentence: CALLER_SENTENCE,
        clipMs: clip.clipMs,
        longestPauseMs: clip.longestPauseMs,
        interUtteranceMs: INTER_UTTERANCE_MS,
        greeting: GREETING,
        ringMs: RING_MS,
        spacingMs: CALL_SPACING_MS,
        vad,
      },
      levels,
      interrupted: signal.aborted,
      profile,
      backchannel,
      charts: { gap: '', cpu: '' },
    },
    context,
  );
  context.out(report.markdown);
  context.log(`report: ${report.file}`);
  if (context.options.json) {
    context.out(
      JSON.stringify({
        ceiling: ceilingOf(levels),
        levels: levels.map((l) => ({
          calls: l.calls,
          pass: l.pass,
          runs: l.runs.map((r) => ({ figures: r.figures, gates: r.gates })),
        })),
      }),
    );
  }
  return signal.aborted ? EXIT_INTERRUPTED : EXIT_OK;
}

function outcomeOf(raw: RunRaw): RunOutcome {
  const figures = runFigures(raw, providerMs(CALL_LATENCIES));
  return {
    figures,
    gates: evaluateGates(figures),
    windows: raw.windows.map((w) => ({ ...w, window: { ...w.window, gapsMs: [] } })),
    reports: raw.callerEnds.map((c) => c.latency),
    providerLate: { llm: raw.llmLateMs, tts: raw.ttsLateMs },
  };
}

async function writeReport(
  options: CallsOptions,
  report: CallsReport,
  context: SuiteContext,
): Promise<{ file: string; markdown: string }> {
  const stem = `${report.machine.date.slice(0, 10)}-${options.name}`;
  await mkdir(options.outDir, { recursive: true });
  const level = figuresLevel(report.levels);
  const charts: CallsReport['charts'] = { gap: `${stem}-gap-p90.svg`, cpu: `${stem}-cpu.svg` };
  if (level) {
    charts.latencyCdf = `${stem}-latency-cdf.svg`;
    await writeFile(path.join(options.outDir, charts.latencyCdf), latencyCdfChart(level, report.settings.providerMs));
  }
  await writeFile(path.join(options.outDir, charts.gap), gapChart(report.levels));
  await writeFile(path.join(options.outDir, charts.cpu), cpuChart(report.levels));
  const markdown = formatReport({ ...report, charts });
  const file = path.join(options.outDir, `${stem}.md`);
  await writeFile(file, markdown);
  context.log(
    `charts: ${Object.values(charts)
      .map((c) => path.join(options.outDir, c))
      .join(', ')}`,
  );
  return { file, markdown };
}

async function versions(): Promise<CallsReport['versions']> {
  const run = (file: string, args: string[]) =>
    promisify(execFile)(file, args, { cwd: REPO_ROOT }).then(
      (r) => r.stdout.trim(),
      () => undefined,
    );
  const pkg = JSON.parse(await readFile(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
  const nats = await run('nats-server', ['--version']);
  return {
    parley: pkg.version,
    natsServer: nats?.replace(/^nats-server:?\s*/, ''),
    commit: await run('git', ['rev-parse', '--short', 'HEAD']),
  };
}
