/**
 * How a call's agent answers (docs/architecture.md §3). The session hears a turn and asks its Responder to respond,
 * without knowing whether a language model (prompt-responder.ts), a flow (flow-responder.ts) or nobody
 * (no-model-responder.ts) decides what is said. A responder acts on the call only through ResponderCall.
 */
import type { CallEvent, CallSpec } from '../protocol/index.ts';
import type { ChatMessage } from '../providers/llm-provider.ts';
import type { AgentTurnResult } from './agent-turn.ts';
import type { PacedAgentAudio } from './paced-agent-audio.ts';
import type { SpeechHandle } from './speech-handle.ts';

export interface Responder {
  /** The call is answered and its greeting (if any) queued: what the agent does first (a flow's first step). */
  start(): Promise<void>;
  /** The caller's turn `turn` ended on `text` (already in the conversation); resolves once the answer is queued. */
  respond(turn: number, text: string): Promise<void>;
  /** A keypress: true when the responder took it; false, and it becomes a turn of its own. */
  pressed(digit: string): boolean;
  /** The call is over: its timers stop. */
  close(): void;
}

/** What a responder may do on its call: the session's side of the seam. */
export interface ResponderCall {
  readonly spec: CallSpec;
  /** What the model sees: the system prompt, then every heard line and tool result. */
  readonly conversation: ChatMessage[];
  /** Aborts when the call ends: pending work stops. */
  readonly signal: AbortSignal;
  /** The agent audio's way out, for a reply's clauses. */
  readonly outbound: PacedAgentAudio;
  /** Milliseconds since the call started. */
  now(): number;
  publish(event: CallEvent): void;
  /** The call is ending for good (a voicemail, the hang-up): lines said now would not be heard. */
  closing(): boolean;
  /** Says a fixed line the caller may interrupt (as part of `turn`, by default the latest); resolves once queued. */
  speakLine(text: string, tag: string, turn?: number): Promise<void>;
  /** Starts a reply of generated clauses, the one the caller may interrupt now; the call is thinking. */
  beginReply(turn: number, result: AgentTurnResult): SpeechHandle;
  /** A reply has all been produced: its timings count for the latency report. */
  replied(turn: number, result: AgentTurnResult): void;
  transfer(to: string): Promise<boolean>;
  /** Lets what is queued play (up to a bound), then ends the call as designed, outcome completed. */
  endAfterPlayback(reason: string): Promise<void>;
  /** Something broke: the call ends as failed. */
  fail(error: unknown): void;
}
