/**
 * The messages between the bench (parent) and the two processes it forks for each run: the engine with its
 * fake-provider workers (engine-process.ts), and the carriers' side of the calls (caller-process.ts). Sent with
 * the `advanced` serialization (structured clone), so plain objects and arrays go as they are.
 */
import type { LatencyReport } from '@parley/engine/protocol';
import type { SimCarrier } from '../carrier-sim/index.ts';
import type { CallWindow } from './call-meter.ts';

/** A process's own account of a stretch of time, read at its start and end and subtracted. */
export interface ProcessReading {
  /** performance.timeOrigin + performance.now(), ms: comparable across processes on one machine. */
  at: number;
  /** The monotonic clock, µs (process.hrtime): the clock of V8's CPU profiles, to cut a window out of one. */
  monoMicros: number;
  /** User + system CPU time so far, every thread, µs. */
  cpuMicros: number;
  /** Event-loop time so far, ms: busy and idle (perf_hooks eventLoopUtilization). */
  loopActiveMs: number;
  loopIdleMs: number;
  /** 99th percentile of the event loop's delay since the previous reading, ms. */
  loopDelayP99Ms: number;
  rssBytes: number;
}

/** What the engine's media server said about one call's stream when it ended (its CarrierStreamStats). */
export interface EngineStreamEnd {
  callId: string;
  carrier: string;
  /** Media messages taken from the carrier. */
  media: number;
  /** Caller frames dropped because the session fell behind. */
  droppedFrames: number;
  /** Agent audio payloads sent, and dropped because the far end stopped reading. */
  sentPayloads: number;
  droppedPayloads: number;
  malformed: number;
  clears: number;
}

export type ToEngine =
  | { type: 'start'; natsUrl: string; namespace: string }
  | { type: 'read' }
  | { type: 'streams' }
  | { type: 'stop' };

export type FromEngine =
  | { type: 'ready'; vad: 'silero' | 'energy' }
  | { type: 'failed'; message: string }
  | { type: 'read'; reading: ProcessReading; activeCalls: number }
  | {
      type: 'streams';
      streams: EngineStreamEnd[];
      /** Engine log events outside a healthy call's routine, by event, with one example each. */
      incidents: Record<string, { count: number; example: string }>;
      /** How late the fake LLM's first clause and the fake TTS's first audio came past their configured delays, ms, per turn. */
      llmLateMs: number[];
      ttsLateMs: number[];
    }
  | { type: 'stopped' };

/** How the calls of a run are placed. */
export interface CallPlan {
  /** The bus namespace of this run's engine (several runs, or other users of the NATS server, never meet). */
  namespace: string;
  calls: number;
  /** Carriers taken in turn, call by call. */
  carriers: SimCarrier[];
  /** Calls are dispatched this far apart, ms, as calls arrive, not all on one tick. */
  spacingMs: number;
  /** From dispatch to the stream opening, ms: the phone rings (the engine prepares the greeting meanwhile). */
  ringMs: number;
}

export interface CallerStreamEnd {
  callId: string;
  carrier: SimCarrier;
  /** Caller media messages sent (one per 20 ms tick). */
  sentMessages: number;
  /** Agent media messages received. */
  receivedMessages: number;
  /** What the engine sent that the carrier would have refused (the simulator's protocol check). */
  violations: number;
  closeCode: number;
  /** The engine's own latency report of the call (its `ended` event); undefined when it did not come. */
  latency: LatencyReport | undefined;
}

export interface CallerWindow {
  callId: string;
  carrier: SimCarrier;
  window: CallWindow;
}

export type ToCaller =
  | { type: 'prepare'; natsUrl: string }
  | { type: 'start'; plan: CallPlan }
  | { type: 'open-window' }
  | { type: 'close-window' }
  | { type: 'read' }
  | { type: 'hangup' }
  | { type: 'quit' };

export type FromCaller =
  | { type: 'prepared'; clipMs: number; longestPauseMs: number }
  | { type: 'failed'; message: string }
  /** `failures`: why the calls that did not get going failed, one line each. */
  | { type: 'started'; connected: number; failures: string[] }
  | { type: 'window-opened' }
  | { type: 'window'; calls: CallerWindow[] }
  | { type: 'read'; reading: ProcessReading }
  | { type: 'hung-up'; streams: CallerStreamEnd[] }
  | { type: 'quit' };
