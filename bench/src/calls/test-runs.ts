/**
 * Runs made up for the calls suite's unit tests: a RunRaw whose every figure is known, and the level outcomes the
 * report and charts are drawn from. Only the tests import this file.
 */
import type { SimCarrier } from '../carrier-sim/index.ts';
import type { CallWindow } from './call-meter.ts';
import { runFigures } from './call-metrics.ts';
import { evaluateGates, type LevelOutcome, type RunOutcome } from './gates.ts';
import type { ProcessReading } from './messages.ts';
import type { RunRaw } from './run-once.ts';

export const PROVIDER_MS = 430;
const MIB = 2 ** 20;

export function reading(at: number, cpuMs: number, overrides: Partial<ProcessReading> = {}): ProcessReading {
  return {
    at,
    monoMicros: at * 1000,
    cpuMicros: cpuMs * 1000,
    loopActiveMs: 0,
    loopIdleMs: 0,
    loopDelayP99Ms: 1,
    rssBytes: 200 * MIB,
    ...overrides,
  };
}

export function callWindow(overrides: Partial<CallWindow> = {}): CallWindow {
  return {
    greetingMs: 12,
    turnMs: [440, 450, 460],
    utterances: 3,
    answered: 3,
    gapsMs: [0, 0, 0, 0, 0, 0, 0, 0, 1, 2],
    bargeIns: [{ stopMs: 930, decisionMs: 940, afterClearMs: 0, messagesAfterClear: 0 }],
    overlapsWithoutClear: 0,
    agentMessages: 100,
    agentAudioMs: 2_000,
    ...overrides,
  };
}

/**
 * `calls` calls alternating carrier-a and carrier-b over a 60 s window; the engine uses `engineCpuMs` of CPU in it
 * and its RSS goes from 160 MiB idle to 160 + `rssPerCallMiB` × calls; every message is delivered.
 */
export function rawRun(
  calls: number,
  options: { engineCpuMs?: number; rssPerCallMiB?: number; window?: Partial<CallWindow> } = {},
): RunRaw {
  const ids = Array.from({ length: calls }, (_, i) => `call${i}`);
  const carrier = (i: number): SimCarrier => (i % 2 === 0 ? 'carrier-a' : 'carrier-b');
  const windowRss = (160 + (options.rssPerCallMiB ?? 1) * calls) * MIB;
  return {
    calls,
    connected: calls,
    failures: [],
    vad: 'silero',
    windowMs: 60_000,
    windows: ids.map((callId, i) => ({ callId, carrier: carrier(i), window: callWindow(options.window) })),
    callerEnds: ids.map((callId, i) => ({
      callId,
      carrier: carrier(i),
      sentMessages: 3_500,
      receivedMessages: 1_200,
      violations: 0,
      closeCode: 1000,
      latency: {
        greetingMs: 5,
        turns: [
          { turn: 1, endpointingMs: 202, sttFinalMs: 202, llmFirstTokenMs: 152, ttsFirstByteMs: 82, endToEndMs: 437 },
        ],
      },
    })),
    engineEnds: ids.map((callId, i) => ({
      callId,
      carrier: carrier(i),
      media: 3_500,
      droppedFrames: 0,
      sentPayloads: 1_200,
      droppedPayloads: 0,
      malformed: 0,
      clears: 15,
    })),
    incidents: {},
    llmLateMs: [0.2, 0.4],
    ttsLateMs: [0.1],
    engine: { before: reading(1_000, 0), after: reading(61_000, options.engineCpuMs ?? 30_000) },
    callers: { before: reading(1_000, 0), after: reading(61_000, 12_000) },
    idleRssBytes: 160 * MIB,
    windowRssBytes: [windowRss, windowRss],
    natsCpuMs: 6_000,
    machineBusyShare: 0.5,
  };
}

export function outcome(raw: RunRaw): RunOutcome {
  const figures = runFigures(raw, PROVIDER_MS);
  return {
    figures,
    gates: evaluateGates(figures),
    windows: raw.windows,
    reports: raw.callerEnds.map((c) => c.latency),
    providerLate: { llm: raw.llmLateMs, tts: raw.ttsLateMs },
  };
}

/** A level of `runs` identical runs; it passes when they all pass their gates. */
export function level(calls: number, runs: number, options: Parameters<typeof rawRun>[1] = {}): LevelOutcome {
  const all = Array.from({ length: runs }, () => outcome(rawRun(calls, options)));
  return { calls, runs: all, errors: [], pass: all.every((r) => r.gates.every((g) => g.pass)) };
}
