/**
 * The flow executor's contract with the call session: what the session passes in (options, caller turns, the
 * language model), what it gets back (actions, the result), and the error for calls made out of turn.
 */
import type { CapturedField } from '../../protocol/flow-definition.ts';
import type { Variables } from '../../protocol/template.ts';

/** An intent the language model chooses among. */
export interface FlowIntent {
  intent: string;
  description?: string;
  examples?: string[];
}

/** What the flow asks of a language model; the call session implements it on top of the LLM worker. */
export interface FlowLanguageModel {
  /** The name of the intent the caller's words express, or undefined when none fits. */
  classifyIntent(text: string, intents: readonly FlowIntent[]): Promise<string | undefined>;
  /** The field's value in the caller's words, or undefined; the executor re-checks it against the field's type. */
  extractField(text: string, field: CapturedField): Promise<unknown>;
  /** A short spoken answer to the question from the search results (`context`), or undefined when they have none. */
  answer(question: string, context: unknown): Promise<string | undefined>;
}

export interface FlowExecutorOptions {
  /** The call's variables, for {{placeholders}}, tool arguments and value conditions with `from: variables`. */
  variables?: Variables;
  llm?: FlowLanguageModel;
  /** The call's local date (YYYY-MM-DD) for "tomorrow" and "next Monday". Default: today in UTC. */
  today?: string;
  /** Longest wait for one language-model answer, ms. */
  llmTimeoutMs?: number;
}

/** One caller turn: the final transcript, the keys pressed, or both; neither means the caller stayed silent. */
export interface CallerTurn {
  text?: string;
  dtmf?: string;
}

export interface FlowEnd {
  outcomeKey: string;
  outcomeLabel: string;
  /** Spoken after `say`, before hanging up. */
  closing?: string;
  /** The call was transferred: do not hang up, the person now has it. */
  handedOver: boolean;
}

/**
 * What the session does now: speak `say` in order, then exactly one of: listen for the caller (`listen`), run a
 * tool (`toolCall`, then `onToolResult`), transfer (`handover`, then `onHandoverResult`), or end (`end`).
 * Empty when a call to the executor changed nothing.
 */
export interface FlowActions {
  say: string[];
  listen?: {
    stepKey: string /** Keys to collect for a keypad answer ('#' ends early); 0: no keypad answer. */;
    maxDigits: number;
  };
  toolCall?: { stepKey: string; tool: string; arguments: Record<string, unknown> };
  handover?: { stepKey: string };
  end?: FlowEnd;
}

/** The result row material (spec: Result row, resultSource flow). */
export interface FlowResult {
  outcomeKey: string;
  outcomeLabel: string;
  captured: Record<string, unknown>;
  flowPath: string[];
  /** False when the call stopped before the flow ended (the outcome is then no_result). */
  ended: boolean;
  resultSource: 'flow';
}

/** The session called the executor out of turn: a bug in the caller, never the flow's fault. */
export class FlowStateError extends Error {
  override name = 'FlowStateError';
  readonly code = 'flow_state';
  readonly retryable = false;
}
