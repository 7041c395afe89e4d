/**
 * What the engine measures of its calls (docs/architecture.md §19): live calls, the latency report's turn figures,
 * barge-ins and late audio frames. The turn figures are the ones the latency report carries (session/
 * latency-tracker.ts): each closed turn is observed here as it is written there, never timed a second way.
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import { processPacingClock } from '../audio/pacing-clock.ts';
import type { TurnLatency } from '../protocol/index.ts';
import { metricsRegistry } from './registry.ts';

/**
 * Buckets of the turn-latency histogram, seconds: from 50 ms (a cached endpointing decision) to 10 s (a model that
 * stalled); a conversational reply is judged around 0.5–1.5 s, so the buckets are densest there.
 */
const TURN_BUCKETS_SECONDS = [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10];
/**
 * Buckets of the barge-in histogram, seconds of caller speech over the agent before it was stopped for good (it is
 * paused for the caller after ~0.12 s, docs/architecture.md §3): words can stop it after a few hundred ms, voice alone
 * after BARGE_IN_WITHOUT_WORDS_MS (1.5 s); beyond 3 s the barge-in is broken.
 */
const BARGE_IN_BUCKETS_SECONDS = [0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.5, 2, 3, 5];

export const activeCalls = new Gauge({
  name: 'parley_active_calls',
  help: 'Calls this engine is running now (a CallSession between its start and its end).',
  registers: [metricsRegistry],
});

export const callsEnded = new Counter({
  name: 'parley_calls_ended_total',
  help: 'Calls this engine ended, by outcome.',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export const turnLatency = new Histogram({
  name: 'parley_turn_latency_seconds',
  help:
    'Per-turn latency from the latency report, by stage: end_to_end (caller stopped speaking → first agent audio), ' +
    'endpointing, stt_final, llm_first_token, tts_first_byte.',
  labelNames: ['stage'] as const,
  buckets: TURN_BUCKETS_SECONDS,
  registers: [metricsRegistry],
});

export const bargeIns = new Histogram({
  name: 'parley_barge_in_seconds',
  help: 'Barge-ins: how long the caller had spoken over the agent when it was stopped.',
  buckets: BARGE_IN_BUCKETS_SECONDS,
  registers: [metricsRegistry],
});

/** The pacing clock's slipped ticks already counted. */
let slippedSeen = 0;

export const lateFrames = new Counter({
  name: 'parley_late_frames_total',
  help:
    'Audio frames that came too late: inbound, caller chunks dropped because a newer one had already been taken; ' +
    'outbound, pacing-clock ticks skipped after a stall.',
  labelNames: ['direction'] as const,
  registers: [metricsRegistry],
  // Outbound: the process pacing clock's slipped ticks, read at each scrape (audio/ imports nothing of metrics).
  collect() {
    const slipped = processPacingClock().slipped;
    this.inc({ direction: 'outbound' }, Math.max(0, slipped - slippedSeen));
    slippedSeen = slipped;
  },
});
lateFrames.inc({ direction: 'inbound' }, 0);

/** The latency report's stages as metric labels. */
const STAGES = {
  endToEndMs: 'end_to_end',
  endpointingMs: 'endpointing',
  sttFinalMs: 'stt_final',
  llmFirstTokenMs: 'llm_first_token',
  ttsFirstByteMs: 'tts_first_byte',
} as const satisfies Partial<Record<keyof TurnLatency, string>>;

/** One closed turn of a latency report: each stage it measured goes into the histogram. */
export function observeTurn(turn: TurnLatency): void {
  for (const [field, stage] of Object.entries(STAGES) as [keyof typeof STAGES, string][]) {
    const ms = turn[field];
    if (ms !== undefined && ms >= 0) turnLatency.observe({ stage }, ms / 1000);
  }
}
