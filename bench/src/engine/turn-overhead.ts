/**
 * The engine's own latency in one turn, from the engine's latency report and the stamps of the fixed-latency
 * providers and the caller (all performance.now() in one process):
 *
 *   engine overhead = endToEndMs − endpointingMs − LLM time to first clause − TTS time to first audio
 *
 * endToEndMs and endpointingMs are the engine's report (from the caller's last voiced frame to the first agent
 * frame out, and to the end of the turn). The two provider times are what the fake providers themselves took,
 * stamped inside them: their fixed delays plus their timers' lateness, so neither counts against the engine.
 * The STT's delay is not subtracted: with a batch recogniser the turn ends only once its final arrived, so that
 * delay is already inside endpointingMs; with a streaming one the final arrives during the endpointing silence
 * and is off the critical path. What is left is the engine's: the turn's hand-off to the LLM worker over the bus,
 * the tokens' way back and the clause chunker, the clause's way to the TTS worker, the worker's resampling, the
 * audio's way back, framing and queueing, and the wait for the shared 20 ms pacing clock's next tick.
 *
 * The same span is also cut into hops from the outside, each between two stamps:
 *   turn end → LLM request        llmRequestAt − (lastVoicedAt + endpointingMs)
 *   first clause → TTS request    ttsRequestAt − llmFirstClauseAt
 *   TTS first audio → frame out   firstFrameAt − ttsFirstAudioAt, of which the wait for the next clock tick
 *                                 (first tick at or after ttsFirstAudioAt − ttsFirstAudioAt)
 */
import type { TurnLatency } from '@parley/engine/protocol';
import { percentile } from '../percentiles.ts';
import type { TurnStamps } from './turn-stamps.ts';

export interface TurnRecord {
  /** The engine's latency report entry for the turn. */
  report: TurnLatency;
  stamps: TurnStamps;
  /** The pacing clock's first tick at or after the TTS's first audio (performance.now(), ms). */
  tickAfterAudioAt?: number;
}

/** One turn's figures, ms; NaN where a stamp or a report field is missing. */
export interface TurnBreakdown {
  endpointingMs: number;
  sttFinalMs: number;
  llmFirstTokenMs: number;
  ttsFirstByteMs: number;
  endToEndMs: number;
  /** From the caller pushing its last voiced frame to receiving the first agent frame. */
  callerEndToEndMs: number;
  /** What the fake LLM took from the request to the token completing the first clause. */
  providerLlmMs: number;
  /** What the fake TTS took from the first clause to its first audio. */
  providerTtsMs: number;
  /** endToEndMs − endpointingMs − providerLlmMs − providerTtsMs. */
  overheadMs: number;
  turnToLlmMs: number;
  clauseToTtsMs: number;
  audioToFrameMs: number;
  /** Of audioToFrameMs: the wait for the pacing clock's next tick. */
  pacingWaitMs: number;
}

/** Every field of a TurnBreakdown, in the order reports list them. */
export const BREAKDOWN_FIELDS = [
  'endpointingMs',
  'sttFinalMs',
  'llmFirstTokenMs',
  'ttsFirstByteMs',
  'endToEndMs',
  'callerEndToEndMs',
  'providerLlmMs',
  'providerTtsMs',
  'overheadMs',
  'turnToLlmMs',
  'clauseToTtsMs',
  'audioToFrameMs',
  'pacingWaitMs',
] as const satisfies readonly (keyof TurnBreakdown)[];

const span = (from: number | undefined, to: number | undefined) =>
  from === undefined || to === undefined ? Number.NaN : to - from;

export function breakDown(record: TurnRecord): TurnBreakdown {
  const { report, stamps } = record;
  const endToEndMs = report.endToEndMs ?? Number.NaN;
  const providerLlmMs = span(stamps.llmRequestAt, stamps.llmFirstClauseAt);
  const providerTtsMs = span(stamps.ttsRequestAt, stamps.ttsFirstAudioAt);
  const turnEndedAt = stamps.lastVoicedAt === undefined ? undefined : stamps.lastVoicedAt + report.endpointingMs;
  return {
    endpointingMs: report.endpointingMs,
    sttFinalMs: report.sttFinalMs ?? Number.NaN,
    llmFirstTokenMs: report.llmFirstTokenMs ?? Number.NaN,
    ttsFirstByteMs: report.ttsFirstByteMs ?? Number.NaN,
    endToEndMs,
    callerEndToEndMs: span(stamps.lastVoicedAt, stamps.firstFrameAt),
    providerLlmMs,
    providerTtsMs,
    overheadMs: endToEndMs - report.endpointingMs - providerLlmMs - providerTtsMs,
    turnToLlmMs: span(turnEndedAt, stamps.llmRequestAt),
    clauseToTtsMs: span(stamps.llmFirstClauseAt, stamps.ttsRequestAt),
    audioToFrameMs: span(stamps.ttsFirstAudioAt, stamps.firstFrameAt),
    pacingWaitMs: span(stamps.ttsFirstAudioAt, record.tickAfterAudioAt),
  };
}

/** A distribution's summary, ms. */
export interface Summary {
  /** Samples that had a value (NaN samples are left out). */
  n: number;
  mean: number;
  p50: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles over the finite values; NaN throughout when there are none. */
export function summarize(values: readonly number[]): Summary {
  const sorted = Float64Array.from(values.filter((v) => Number.isFinite(v))).sort();
  const n = sorted.length;
  if (n === 0) return { n, mean: Number.NaN, p50: Number.NaN, p99: Number.NaN, max: Number.NaN };
  return {
    n,
    mean: sorted.reduce((a, b) => a + b, 0) / n,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[n - 1]!,
  };
}
