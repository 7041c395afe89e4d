/**
 * The calls suite's report, as Markdown: the ceiling and every target with its figure (and by how much it was
 * missed), the method, every run's gates, the latency figures at the ceiling per carrier, where a turn's time goes
 * inside the engine, CPU and memory per call at each level, the load generator's and the bus's own load, the
 * charts, the engine's CPU profile, and anything the engine logged that a healthy call does not.
 */
import { describeMachine, type MachineFacts } from '../machine.ts';
import type { FixedLatencies } from '../engine/fixed-latency-providers.ts';
import { carrierFigures, engineBreakdown, slope, spread, type CarrierFigures, type Spread } from './call-metrics.ts';
import type { BackchannelFigures } from './backchannel-probe.ts';
import type { ProfileSummary } from './cpu-profile.ts';
import { ceilingOf, TARGETS, type LevelOutcome } from './gates.ts';

export interface ReportSettings {
  /** The command line, as typed. */
  command: string;
  levels: number[];
  runs: number;
  warmupSeconds: number;
  windowSeconds: number;
  carriers: string[];
  latencies: FixedLatencies;
  providerMs: number;
  extraTokens: number;
  ttsLeadMs: number;
  endpointingMs: number;
  sentence: string;
  clipMs: number;
  longestPauseMs: number;
  interUtteranceMs: number;
  greeting: string;
  ringMs: number;
  spacingMs: number;
  vad: string;
}

export interface CallsReport {
  machine: MachineFacts;
  versions: { parley: string; natsServer: string | undefined; commit: string | undefined };
  settings: ReportSettings;
  levels: LevelOutcome[];
  /** The run stopped early (Ctrl-C): the ladder is incomplete. */
  interrupted: boolean;
  profile?: { calls: number; summary: ProfileSummary };
  /** The backchannel set, run after the ladder (backchannel-probe.ts); absent when it did not run. */
  backchannel?: BackchannelFigures;
  /** Chart files, relative to the report. */
  charts: { latencyCdf?: string; gap: string; cpu: string };
}

export interface TargetRow {
  target: string;
  figure: string;
  met: boolean | undefined;
  /** By how much a missed target was missed, or why it could not be judged. */
  note: string;
}

const ms = (v: number, digits = 1) => (Number.isFinite(v) ? `${v.toFixed(digits)}` : '–');
const pct = (share: number | undefined, digits = 1) =>
  share !== undefined && Number.isFinite(share) ? `${(share * 100).toFixed(digits)} %` : '–';
const triple = (s: Spread, digits = 1) =>
  s.n ? `${ms(s.p50, digits)} / ${ms(s.p90, digits)} / ${ms(s.p99, digits)}` : '–';
const table = (head: string[], rows: string[][], right: boolean[]) =>
  [
    `| ${head.join(' | ')} |`,
    `|${right.map((r) => (r ? '---:' : '---')).join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');

/** The level the latency figures are given at: the ceiling, or the lowest level measured when none passed. */
export function figuresLevel(levels: readonly LevelOutcome[]): LevelOutcome | undefined {
  const ceiling = ceilingOf(levels);
  const sorted = [...levels].sort((a, b) => a.calls - b.calls);
  return sorted.find((l) => l.calls === ceiling) ?? sorted[0];
}

/** A level's calls pooled over its runs, per carrier and all together. */
export function pooled(level: LevelOutcome, providerMs: number): { carrier: string; figures: CarrierFigures }[] {
  const windows = level.runs.flatMap((r) => r.windows);
  const carriers = [...new Set(windows.map((w) => w.carrier))].sort();
  return [
    ...carriers.map((carrier) => ({
      carrier,
      figures: carrierFigures(
        windows.filter((w) => w.carrier === carrier).map((w) => w.window),
        providerMs,
      ),
    })),
    {
      carrier: 'all',
      figures: carrierFigures(
        windows.map((w) => w.window),
        providerMs,
      ),
    },
  ];
}

/** MiB of engine RSS per added call: the slope of the window's mean RSS over the calls of every run. */
export function memorySlopeMiB(levels: readonly LevelOutcome[]): number {
  return slope(
    levels.flatMap((l) => l.runs.map((r) => ({ x: r.figures.connected, y: r.figures.engine.windowRssMiB }))),
  );
}

/** Engine CPU ms per second of each added call: the slope of the engine's CPU over the calls of every run. */
export function cpuSlopeMsPerCallSecond(levels: readonly LevelOutcome[]): number {
  return slope(
    levels.flatMap((l) => l.runs.map((r) => ({ x: r.figures.connected, y: r.figures.engine.coreShare * 1000 }))),
  );
}

/** The ceiling as the report states it: `≥` when every level tried passed (the ladder ended before a gate failed). */
export function ceilingText(levels: readonly LevelOutcome[]): string {
  const ceiling = ceilingOf(levels);
  return levels.length > 0 && levels.every((l) => l.pass)
    ? `≥ ${ceiling} calls (every level tried passed)`
    : `${ceiling} calls`;
}

export function targetRows(report: CallsReport): TargetRow[] {
  const ceiling = ceilingOf(report.levels);
  const level = figuresLevel(report.levels);
  const all = level ? pooled(level, report.settings.providerMs).at(-1)!.figures : undefined;
  const at = level ? ` (at ${level.calls} calls${ceiling ? '' : ', no level passed'})` : '';
  const rows: TargetRow[] = [];
  const judge = (target: string, value: number | undefined, limit: number, unit: string, digits = 1) => {
    const known = value !== undefined && Number.isFinite(value);
    rows.push({
      target,
      figure: known ? `${value.toFixed(digits)} ${unit}${at}` : `–${at}`,
      met: known ? value <= limit : undefined,
      note: !known
        ? 'not measured'
        : value <= limit
          ? ''
          : `missed by ${(value - limit).toFixed(digits)} ${unit} (${(value / limit).toFixed(1)}×)`,
    });
  };
  rows.push({
    target: `ceiling ≥ ${TARGETS.ceilingCalls} concurrent calls under the gates`,
    figure: ceilingText(report.levels),
    met: ceiling >= TARGETS.ceilingCalls,
    note: ceiling >= TARGETS.ceilingCalls ? '' : `missed by ${TARGETS.ceilingCalls - ceiling} calls`,
  });
  judge(
    `Parley's share of a turn, p50 ≤ ${TARGETS.parleyTurnP50Ms} ms`,
    all?.parleyTurn.p50,
    TARGETS.parleyTurnP50Ms,
    'ms',
  );
  judge(
    `Parley's share of a turn, p99 ≤ ${TARGETS.parleyTurnP99Ms} ms`,
    all?.parleyTurn.p99,
    TARGETS.parleyTurnP99Ms,
    'ms',
  );
  judge(
    `barge-in: agent audio stops ≤ ${TARGETS.bargeInAfterDecisionP99Ms} ms after the decision, p99`,
    all?.bargeAfterClear.p99,
    TARGETS.bargeInAfterDecisionP99Ms,
    'ms',
  );
  judge(
    `barge-in stop from the caller's first word, p50 ≤ ${TARGETS.bargeInStopP50Ms} ms (recogniser without interims)`,
    all?.bargeStop.p50,
    TARGETS.bargeInStopP50Ms,
    'ms',
  );
  judge(
    `barge-in stop from the caller's first word, p99 ≤ ${TARGETS.bargeInStopP99Ms} ms (recogniser without interims)`,
    all?.bargeStop.p99,
    TARGETS.bargeInStopP99Ms,
    'ms',
  );
  const bc = report.backchannel;
  rows.push({
    target: `false cut-offs on the backchannel set: ${TARGETS.backchannelFalseCutOffs}`,
    figure: bc
      ? `${bc.falseCutOffs} of ${bc.said} ("uh-huh", "okay", "yeah", "mm-hmm"; ${bc.paused} paused, ${bc.resumed} resumed, pause p50 ${ms(spread(bc.pauseMs).p50, 0)} ms)`
      : '–',
    met: bc ? bc.said > 0 && bc.falseCutOffs <= TARGETS.backchannelFalseCutOffs : undefined,
    note: !bc ? 'not measured' : bc.falseCutOffs > 0 ? `missed by ${bc.falseCutOffs}` : '',
  });
  judge(
    `memory ≤ ${TARGETS.memoryPerCallMiB} MB per call (engine RSS slope)`,
    memorySlopeMiB(report.levels),
    TARGETS.memoryPerCallMiB,
    'MiB',
    2,
  );
  return rows;
}

/** Where the targets were missed: what stopped the ladder, and what Parley's share of a turn is made of. */
export function findings(report: CallsReport): string[] {
  const lines: string[] = [];
  const failed = [...report.levels].sort((a, b) => a.calls - b.calls).find((l) => !l.pass);
  if (failed) {
    const run = failed.runs.findIndex((r) => r.gates.some((g) => !g.pass));
    const gates =
      run >= 0
        ? failed.runs[run]!.gates.filter((g) => !g.pass).map((g) => `${g.gate} ${g.value} (gate ${g.limit})`)
        : [];
    const why = [...gates, ...failed.errors].join('; ');
    lines.push(
      `- The ladder stopped at ${failed.calls} calls${run >= 0 ? `, run ${run + 1}` : ''}: ${why || 'interrupted'}.`,
    );
  }
  const level = figuresLevel(report.levels);
  if (level) {
    const b = engineBreakdown(level.runs.flatMap((r) => r.reports));
    const l = report.settings.latencies;
    const caller = pooled(level, report.settings.providerMs).at(-1)!.figures;
    if (caller.turn.n && b.turns) {
      lines.push(
        `- Parley's share of a turn at ${level.calls} calls, p50 ${ms(caller.parleyTurn.p50)} ms: ` +
          `${ms(caller.turn.p50 - b.endToEnd.p50)} ms before the engine's clock starts (carrier legs, and the inbound path to the VAD's last voiced frame), ` +
          `then beyond the providers' own delays endpointing ${ms(b.endpointing.p50 - l.sttFinalMs)}, LLM ${ms(b.llmFirstToken.p50 - l.llmFirstTokenMs)}, ` +
          `TTS ${ms(b.ttsFirstByte.p50 - l.ttsFirstByteMs)} ms (bus trips, timers firing late), and the engine's own hops ${ms(b.engineHops.p50)} ms (medians, so they need not add up).`,
      );
    }
  }
  if (report.profile) {
    const top = report.profile.summary.areas
      .slice(0, 4)
      .map((a) => `${a.name} ${pct(a.share, 0)}`)
      .join(', ');
    lines.push(
      `- The engine's CPU at ${report.profile.calls} calls goes to ${top} (self time, see the profile below).`,
    );
  }
  return lines.length ? ['Where the time goes:', '', ...lines, ''] : [];
}

function methodSection(report: CallsReport): string[] {
  const s = report.settings;
  const l = s.latencies;
  return [
    '## Method',
    '',
    `- Command: \`${s.command}\`.`,
    `- Levels ${s.levels.join(', ')} concurrent calls, stepped up until a run fails a gate; ${s.runs} run(s) per level, each a fresh engine process; ` +
      `${s.warmupSeconds} s of warm-up after the last call is up, then a ${s.windowSeconds} s window.`,
    `- Callers: the carrier simulator's client side (SimStream) in a process of its own, speaking ${s.carriers.join(' and ')} in turn, call by call: ` +
      `real-time 20 ms μ-law frames at 8 kHz; marks echoed when played, clears honoured. Each call is dispatched over NATS as the control plane does, ` +
      `rings ${s.ringMs} ms (the engine prepares the greeting meanwhile), then opens its media stream; calls start ${s.spacingMs} ms apart.`,
    `- Each caller lets the greeting ("${s.greeting}") play, waits a random share of one cycle, then loops flite's (kal16) "${s.sentence}" ` +
      `(${(s.clipMs / 1000).toFixed(2)} s from first to last voiced frame, longest pause between words ${s.longestPauseMs} ms) with ${s.interUtteranceMs} ms ` +
      'of silence between utterances, whatever the agent does: it barges in on every reply.',
    `- Engine: \`startEngineRole\` with its media websocket server, ${s.vad === 'silero' ? 'Silero v5 behind the energy gate (the product default)' : 'the energy gate'}, ` +
      'over the real bus (NATS, a namespace per run), with STT, LLM and TTS workers of fixed latency in the same process: ' +
      `STT final ${l.sttFinalMs} ms after the last voiced audio it heard; LLM first token ${l.llmFirstTokenMs} ms, then ${10 + s.extraTokens} tokens ${l.llmTokenIntervalMs} ms apart; ` +
      `TTS first audio ${l.ttsFirstByteMs} ms, then real-time rate, ${s.ttsLeadMs} ms ahead of playback. Providers' time per turn: ${s.providerMs} ms. ` +
      `The agent's endpointing silence is ${s.endpointingMs} ms, the STT's final delay: the turn ends once both are in, and they come together.`,
    '- Gates, per run: audible-gap p90 < 5 ms (a gap: an agent frame arriving more than 20 ms after the one before it while the agent speaks); ' +
      "100 % of frames delivered both ways (each call's counts at the simulator against the engine's stream counters, no frame dropped); " +
      'every call answers at least 90 % of its utterances (so a dead server cannot look good); the engine process below 80 % of a core. ' +
      'The ceiling is the highest level whose every run passes.',
    "- Turn latency is measured at the simulator, from the send of the caller's last voiced frame to the arrival of the reply's first frame; " +
      "Parley's share is that less the providers' fixed time. Barge-in: from the caller's first frame over a live agent line to the last agent frame " +
      "received; the engine sends its clear in the same step as it drops its queue, so the clear's arrival is the decision as the carrier sees it.",
    "- CPU is each process's own `process.cpuUsage()` over the window (all threads), as a share of one core; the NATS server and the machine from /proc. " +
      "Memory per call: the slope of the engine's mean RSS in the window against the calls of every run.",
    '',
  ];
}

function gatesSection(report: CallsReport): string[] {
  const rows: string[][] = [];
  for (const level of [...report.levels].sort((a, b) => a.calls - b.calls)) {
    level.runs.forEach((run, i) => {
      const cell = (gate: string) => run.gates.find((g) => g.gate === gate);
      const show = (gate: string) => {
        const g = cell(gate);
        return g ? `${g.pass ? '' : '**'}${g.value}${g.pass ? '' : '**'}` : '–';
      };
      rows.push([
        String(level.calls),
        String(i + 1),
        show('calls up'),
        show('audible-gap p90'),
        show('frames delivered'),
        show('output per call'),
        show('engine CPU'),
        run.gates.every((g) => g.pass) ? 'pass' : '**fail**',
      ]);
    });
    for (const error of level.errors) rows.push([String(level.calls), '', '', '', '', '', '', `**broke**: ${error}`]);
  }
  return [
    '## Gates, run by run',
    '',
    table(['calls', 'run', 'calls up', 'gap p90', 'frames delivered', 'output per call', 'engine CPU', 'gates'], rows, [
      true,
      true,
      true,
      true,
      false,
      false,
      true,
      false,
    ]),
    '',
  ];
}

function latencySection(report: CallsReport, level: LevelOutcome): string[] {
  const rows = pooled(level, report.settings.providerMs).map(({ carrier, figures: f }) => [
    carrier,
    String(f.turn.n),
    triple(f.turn),
    triple(f.parleyTurn),
    triple(f.greeting),
    String(f.bargeStop.n),
    triple(f.bargeStop),
    `${ms(f.bargeDecision.p50)} / ${ms(f.bargeDecision.p99)}`,
    `${ms(f.bargeAfterClear.p99)} (${f.messagesAfterClear} msgs)`,
  ]);
  return [
    `## Latency at ${level.calls} calls, at the caller (all ${level.runs.length} run(s) pooled; ms, p50 / p90 / p99)`,
    '',
    table(
      [
        'carrier',
        'turns',
        'turn',
        "Parley's share",
        'greeting',
        'barge-ins',
        'barge-in stop',
        'decision p50 / p99',
        'after clear p99',
      ],
      rows,
      [false, true, true, true, true, true, true, true, true],
    ),
    '',
    "Turn: end of the caller's speech → first agent audio. Parley's share: the same less the providers' " +
      `${report.settings.providerMs} ms. Greeting: stream start → first agent audio. Barge-in stop: the caller's first word over the agent → the last ` +
      'agent audio received; decision: → the clear; after clear: agent audio that still arrived after the clear.',
    '',
  ];
}

function breakdownSection(report: CallsReport, level: LevelOutcome): string[] {
  const b = engineBreakdown(level.runs.flatMap((r) => r.reports));
  const l = report.settings.latencies;
  const caller = pooled(level, report.settings.providerMs).at(-1)!.figures;
  const row = (what: string, s: Spread, configured: number | undefined, meaning: string) => [
    what,
    ms(s.p50),
    ms(s.p99),
    configured === undefined ? '' : String(configured),
    configured === undefined ? '' : ms(s.p50 - configured),
    meaning,
  ];
  const outside = caller.turn.p50 - b.endToEnd.p50;
  const llmLate = spread(level.runs.flatMap((r) => r.providerLate.llm));
  const ttsLate = spread(level.runs.flatMap((r) => r.providerLate.tts));
  return [
    `## Where a turn's time goes (the engine's own latency reports, ${b.turns} turns at ${level.calls} calls; ms)`,
    '',
    table(
      ['span', 'p50', 'p99', 'configured', 'p50 beyond it', 'what it holds'],
      [
        [
          'caller-side turn',
          ms(caller.turn.p50),
          ms(caller.turn.p99),
          String(report.settings.providerMs),
          ms(caller.turn.p50 - report.settings.providerMs),
          'everything, at the simulator',
        ],
        [
          "outside the engine's clock",
          ms(outside),
          '',
          '',
          '',
          "difference of medians: the carrier legs both ways, and inbound audio (decode, jitter buffer, resampling, framing) before the VAD's last voiced frame",
        ],
        row(
          'endpointing',
          b.endpointing,
          l.sttFinalMs,
          "VAD's last voiced frame → turn over: the STT's final, its bus trips, timer lateness",
        ),
        row(
          'LLM first token',
          b.llmFirstToken,
          l.llmFirstTokenMs,
          'turn sent → first token, bus trips both ways included',
        ),
        [
          "… of which the fake LLM's timer late",
          ms(llmLate.p50),
          ms(llmLate.p99),
          '',
          '',
          "the fake shares the engine's event loop: a busy loop fires its timers late",
        ],
        row(
          'TTS first audio',
          b.ttsFirstByte,
          l.ttsFirstByteMs,
          'first clause sent → its first audio, bus trips included',
        ),
        ["… of which the fake TTS's timer late", ms(ttsLate.p50), ms(ttsLate.p99), '', '', 'as above'],
        row(
          'engine hops',
          b.engineHops,
          undefined,
          "end-to-end less the three above: hand-offs inside the engine, the clause chunker, the first frame's send",
        ),
        row('engine end-to-end', b.endToEnd, undefined, "VAD's last voiced frame → first agent frame out"),
      ],
      [false, true, true, true, true, false],
    ),
    '',
  ];
}

function resourcesSection(report: CallsReport): string[] {
  const rows: string[][] = [];
  for (const level of [...report.levels].sort((a, b) => a.calls - b.calls)) {
    level.runs.forEach((run, i) => {
      const f = run.figures;
      rows.push([
        String(level.calls),
        String(i + 1),
        pct(f.engine.coreShare),
        ms(f.engine.cpuMsPerCallSecond, 2),
        pct(f.engine.loopUtilization, 0),
        ms(f.engine.loopDelayP99Ms),
        `${ms(f.engine.idleRssMiB, 0)} → ${ms(f.engine.windowRssMiB, 0)}`,
        ms(f.engine.rssPerCallMiB, 2),
        pct(f.callers.coreShare),
        ms(f.callers.loopDelayP99Ms),
        pct(f.natsCoreShare),
        pct(f.machineBusyShare, 0),
      ]);
    });
  }
  return [
    '## CPU and memory, run by run',
    '',
    table(
      [
        'calls',
        'run',
        'engine CPU (1 core)',
        'CPU ms per s of call',
        'engine loop busy',
        'engine loop delay p99 ms',
        'engine RSS MiB idle → window',
        'RSS MiB per call',
        'callers CPU',
        'callers loop delay p99 ms',
        'nats-server CPU',
        'machine busy (all cores)',
      ],
      rows,
      Array(12).fill(true),
    ),
    '',
    `Across all runs: each added call costs ${ms(cpuSlopeMsPerCallSecond(report.levels), 2)} ms of engine CPU per second (slope) and ` +
      `${ms(memorySlopeMiB(report.levels), 2)} MiB of engine RSS (slope). The callers' loop delay bounds how precisely the simulator times ` +
      'frames: gaps and latencies include it.',
    '',
  ];
}

function profileSection(profile: NonNullable<CallsReport['profile']>): string[] {
  const { summary } = profile;
  const rows = (list: typeof summary.functions, withWhere: boolean) =>
    list.map((r) =>
      withWhere ? [r.name, r.where, ms(r.selfMs, 0), pct(r.share)] : [r.name, ms(r.selfMs, 0), pct(r.share)],
    );
  return [
    `## Where the engine's CPU goes (\`--cpu-prof\` of the engine process, one extra run at ${profile.calls} calls)`,
    '',
    `The window only: ${(summary.busyMs / 1000).toFixed(1)} s busy of ${(summary.wallMs / 1000).toFixed(1)} s (${pct(summary.busyMs / summary.wallMs)} of the main thread; ` +
      "native threads such as ONNX Runtime's are not in a V8 profile). Self time:",
    '',
    table(['area', 'self ms', 'share of busy'], rows(summary.areas, false), [false, true, true]),
    '',
    table(['function', 'where', 'self ms', 'share of busy'], rows(summary.functions, true), [false, false, true, true]),
    '',
  ];
}

function incidentsSection(report: CallsReport): string[] {
  const lines: string[] = [];
  for (const level of report.levels) {
    level.runs.forEach((run, i) => {
      for (const failure of run.figures.failures.slice(0, 3))
        lines.push(`- ${level.calls} calls, run ${i + 1}: call not placed: ${failure}`);
      for (const [event, { count, example }] of Object.entries(run.figures.incidents)) {
        lines.push(`- ${level.calls} calls, run ${i + 1}: engine logged "${event}" ${count}× (e.g. \`${example}\`)`);
      }
    });
  }
  return [
    '## Incidents',
    '',
    ...(lines.length
      ? lines
      : ["None: no call failed to start, and the engine logged nothing outside a healthy call's routine."]),
    '',
  ];
}

export function formatReport(report: CallsReport): string {
  const level = figuresLevel(report.levels);
  const targets = targetRows(report);
  const v = report.versions;
  const out = [
    `# Concurrent calls: ceiling ${ceilingText(report.levels)} (${report.machine.date.slice(0, 10)})`,
    '',
    `Machine: ${describeMachine(report.machine)}. Parley ${v.parley}${v.commit ? ` (${v.commit})` : ''}, ` +
      `nats-server ${v.natsServer ?? 'unknown'}. The load generator runs on the same machine.` +
      (report.interrupted ? ' **Stopped early (Ctrl-C): the ladder is incomplete.**' : ''),
    '',
    '## Targets',
    '',
    table(
      ['target', 'figure', 'met'],
      targets.map((t) => [t.target, t.figure, t.met === undefined ? '–' : t.met ? 'met' : `**missed**: ${t.note}`]),
      [false, true, false],
    ),
    '',
    ...findings(report),
    ...methodSection(report),
    ...gatesSection(report),
    ...(level ? [...latencySection(report, level), ...breakdownSection(report, level)] : []),
    ...resourcesSection(report),
    '## Charts',
    '',
    ...(report.charts.latencyCdf ? [`![Latency CDF](${report.charts.latencyCdf})`, ''] : []),
    `![Gap p90 against concurrency](${report.charts.gap})`,
    '',
    `![CPU against concurrency](${report.charts.cpu})`,
    '',
    ...(report.profile ? profileSection(report.profile) : []),
    ...incidentsSection(report),
  ];
  return `${out.join('\n')}\n`;
}
