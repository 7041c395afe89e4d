/**
 * The gates every run must pass for its level to count (the issue's methodology), and the targets the report holds
 * the ceiling's figures to. A gate failed ends the stepping; a target missed is a finding the report explains.
 */
import type { LatencyReport } from '@parley/engine/protocol';
import type { RunFigures } from './call-metrics.ts';
import type { CallerWindow } from './messages.ts';
import { MIN_ANSWERED_SHARE } from './call-metrics.ts';

/** Audible-gap p90 must stay below this, ms: a frame that late is a click a listener hears. */
export const GAP_P90_LIMIT_MS = 5;
/** The engine process's CPU must stay below this share of one core: its event loop is one thread, and past 80 % bursts queue. */
export const ENGINE_CPU_LIMIT = 0.8;

/** Targets at the ceiling (issue 8), on the two-core reference machine with the load generator on it. */
export const TARGETS = {
  ceilingCalls: 300,
  parleyTurnP50Ms: 10,
  parleyTurnP99Ms: 30,
  /** Agent audio stops this soon after the interruption decision, p99, ms. */
  bargeInAfterDecisionP99Ms: 40,
  /** From the caller's first word over the agent to its last audio, with a recogniser that sends no interims (issue 19). */
  bargeInStopP50Ms: 200,
  bargeInStopP99Ms: 300,
  /** Answers cut off by "uh-huh", "okay", "yeah" or "mm-hmm" said over them. */
  backchannelFalseCutOffs: 0,
  memoryPerCallMiB: 2,
} as const;

export interface GateResult {
  gate: string;
  /** The run's figure, formatted. */
  value: string;
  limit: string;
  pass: boolean;
}

const percent = (share: number) => `${(share * 100).toFixed(1)} %`;

export function evaluateGates(run: RunFigures): GateResult[] {
  const { delivery: d } = run;
  const agentShare = d.agentSent + d.agentDropped === 0 ? Number.NaN : d.agentReceived / (d.agentSent + d.agentDropped);
  const callerShare = d.callerSent === 0 ? Number.NaN : (d.callerTaken - d.callerDropped) / d.callerSent;
  const gapP90 = run.all.gaps.p90;
  return [
    {
      gate: 'calls up',
      value: `${run.connected}/${run.calls}`,
      limit: 'all',
      pass: run.connected === run.calls,
    },
    {
      gate: 'audible-gap p90',
      value: Number.isFinite(gapP90) ? `${gapP90.toFixed(2)} ms` : 'no agent audio',
      limit: `< ${GAP_P90_LIMIT_MS} ms`,
      pass: gapP90 < GAP_P90_LIMIT_MS,
    },
    {
      gate: 'frames delivered',
      value: `agent ${percent(agentShare)}, caller ${percent(callerShare)}${d.callsShort ? `, ${d.callsShort} call(s) short` : ''}`,
      limit: '100 %',
      pass:
        d.callsShort === 0 &&
        d.agentDropped === 0 &&
        d.callerDropped === 0 &&
        d.agentReceived === d.agentSent &&
        d.callerTaken === d.callerSent,
    },
    {
      gate: 'output per call',
      value: `worst call answered ${percent(run.worstAnsweredShare)}${run.quietCalls ? `, ${run.quietCalls} below` : ''}`,
      limit: `≥ ${percent(MIN_ANSWERED_SHARE)} of its utterances`,
      pass: run.quietCalls === 0,
    },
    {
      gate: 'engine CPU',
      value: `${percent(run.engine.coreShare)} of a core`,
      limit: `< ${percent(ENGINE_CPU_LIMIT)}`,
      pass: run.engine.coreShare < ENGINE_CPU_LIMIT,
    },
  ];
}

export const passed = (gates: readonly GateResult[]): boolean => gates.every((g) => g.pass);

export interface RunOutcome {
  figures: RunFigures;
  gates: GateResult[];
  /** Each call's window with its gap samples left out (the gates have judged them): pooled for the level's figures. */
  windows: CallerWindow[];
  /** The engine's own latency report of each call. */
  reports: (LatencyReport | undefined)[];
  /** The fake providers' timer lateness per turn, ms. */
  providerLate: { llm: number[]; tts: number[] };
}

export interface LevelOutcome {
  calls: number;
  runs: RunOutcome[];
  /** Runs that broke before they could be judged (a process gave up, a reply never came): the level fails. */
  errors: string[];
  pass: boolean;
}

/** The highest level whose every run passed, every lower level having passed too; 0 when the first failed. */
export function ceilingOf(levels: readonly LevelOutcome[]): number {
  let ceiling = 0;
  for (const level of [...levels].sort((a, b) => a.calls - b.calls)) {
    if (!level.pass) break;
    ceiling = level.calls;
  }
  return ceiling;
}
