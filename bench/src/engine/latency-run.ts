/**
 * The latency run: a few calls at once (light load, so the figures are the engine's and not a queue's), each caller
 * saying TURNS_PER_CALL utterances in real time and hearing each reply out; then every turn of every call is
 * matched with its stamps.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ConversationRig, type RigCall, type RigOptions } from './conversation-rig.ts';
import type { ConversationScript } from './scripted-caller.ts';
import type { TurnRecord } from './turn-overhead.ts';

/** Utterances per call: several calls share the turns, so no one call's timing dominates. */
export const TURNS_PER_CALL = 5;
/** Between call starts, ms: spreads the calls' turns apart. */
const CALL_STAGGER_MS = 450;
/** One second of speech, then a third of a second between the agent's reply and the next words. */
export const LATENCY_SCRIPT: Omit<ConversationScript, 'turns'> = { speechFrames: 50, gapFrames: 16 };

export interface TurnsResult {
  records: TurnRecord[];
  calls: number;
  utterances: number;
  /** Utterances the agent never answered. */
  timeouts: number;
  /** Turns in the engine's reports with no matching stamps (a transcript the bench did not see). */
  unmatched: number;
}

/** Hangs up `calls` and pairs each reported turn with its stamps. */
export async function collectTurns(rig: ConversationRig, calls: readonly RigCall[]): Promise<TurnsResult> {
  const reports = await Promise.all(calls.map((call) => call.hangUp()));
  const records: TurnRecord[] = [];
  let unmatched = 0;
  reports.forEach((report, c) => {
    const caller = calls[c]!.caller;
    for (const turn of report.turns) {
      const key = caller.keys[turn.turn - 1];
      const stamps = key === undefined ? undefined : rig.book.get(key);
      if (!stamps) {
        unmatched += 1;
        continue;
      }
      const tickAfterAudioAt =
        stamps.ttsFirstAudioAt === undefined ? undefined : rig.ticks.firstAtOrAfter(stamps.ttsFirstAudioAt);
      records.push({ report: turn, stamps, tickAfterAudioAt });
    }
  });
  const counters = calls.map((call) => call.caller.counters);
  return {
    records,
    calls: calls.length,
    utterances: counters.reduce((sum, c) => sum + c.utterances, 0),
    timeouts: counters.reduce((sum, c) => sum + c.timeouts, 0),
    unmatched,
  };
}

export async function runLatency(options: RigOptions & { turns: number; signal: AbortSignal }): Promise<TurnsResult> {
  const rig = new ConversationRig(options);
  try {
    const callCount = Math.ceil(options.turns / TURNS_PER_CALL);
    const calls: RigCall[] = [];
    for (let c = 0; c < callCount && !options.signal.aborted; c++) {
      const turns = Math.min(TURNS_PER_CALL, options.turns - c * TURNS_PER_CALL);
      calls.push(await rig.startCall({ ...LATENCY_SCRIPT, turns }));
      await sleep(CALL_STAGGER_MS);
    }
    const aborted = new Promise<void>((resolve) =>
      options.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    await Promise.race([Promise.all(calls.map((call) => call.caller.finished)), aborted]);
    return await collectTurns(rig, calls);
  } finally {
    await rig.close();
  }
}
