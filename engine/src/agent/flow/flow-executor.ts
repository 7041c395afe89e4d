/**
 * Runs a FLOW agent's flowDefinition turn by turn. It is a state machine without I/O: the call session speaks the
 * lines it returns, collects the caller's words or keys, runs the tools and transfers it asks for, and reports
 * back. Given the same flow, options and calls, it always does the same thing.
 *
 * Without a language model the flow still runs fully when its branches use keys, keywords and captured values
 * (spec: "runs without any LLM"). Steps that would use the model fall back as follows:
 * - ask: answers are read from keys and transcripts (numbers, phones, dates, yes/no, choices, `patterns`); a text
 *   field takes the caller's words as said; a step set to capture by llm only reads the transcript instead.
 * - branch on intents: an intent matches when one of its `examples` (or its name) is in the caller's words.
 * - knowledge: the top search hit is read out, cut to a few sentences.
 * A model call that fails or takes longer than the timeout counts as "no answer" and the same fallback applies:
 * the model can improve a call, never break it.
 */
import {
  CAPTURE_METHODS,
  DEFAULT_ASK_RETRIES,
  DEFAULT_MAX_DIGITS,
  DEFAULT_MAX_STEP_VISITS,
  NO_RESULT_OUTCOME,
  SEARCH_TOOLS,
  type CapturedField,
  type FlowDefinition,
  type FlowStep,
  type StepOfKind,
} from '../../protocol/flow-definition.ts';
import type { Variables } from '../../protocol/template.ts';
import {
  FlowStateError,
  type CallerTurn,
  type FlowActions,
  type FlowExecutorOptions,
  type FlowLanguageModel,
  type FlowResult,
} from './flow-executor-types.ts';
import { captureFromDtmf, captureFromText, normaliseExtracted } from './capture.ts';
import { handoverOutcome } from './flow-results.ts';
import { buildArguments, fillSpoken, intentByExamples, resultVariables, valueHolds } from './flow-values.ts';
import { readOutTopHit } from './search-answer.ts';
import { containsPhrase } from './text-match.ts';
import { isoDate } from './spoken-date.ts';

export * from './flow-executor-types.ts';
export { DEFAULT_ASK_RETRIES, DEFAULT_MAX_STEP_VISITS, NO_RESULT_OUTCOME };

/** A caller waits about this long in silence before saying "hello?"; a late model answer is worse than a fallback. */
export const DEFAULT_LLM_TIMEOUT_MS = 5_000;
/** Said by a knowledge step that found nothing to say, when the flow does not word it. */
export const DEFAULT_NOT_FOUND_TEXT = "I'm sorry, I couldn't find an answer to that.";

type Waiting =
  | { kind: 'idle' }
  | { kind: 'input'; step: string; attempts: number }
  | { kind: 'tool'; step: string; question?: string }
  | { kind: 'handover'; step: string }
  | { kind: 'ended' };

export type FlowStatus = Waiting['kind'];

const listens = (step: StepOfKind<'branch'>) => step.conditions.some((condition) => condition.kind !== 'value');

/**
 * One call's run of a flow. The session calls `start()`, then after speaking each answer's `say` lines does what
 * it says next: on `listen` it passes the caller's next turn to `onCallerTurn`, on `toolCall` the tool's outcome
 * to `onToolResult`, on `handover` the transfer's outcome to `onHandoverResult`; on `end` it speaks the closing
 * and hangs up (unless handed over). Calls are one at a time: each is awaited before the next. `result()` gives the
 * result row material at any point, no_result until an end is reached.
 */
export class FlowExecutor {
  readonly #flow: FlowDefinition;
  readonly #variables: Variables;
  readonly #llm: FlowLanguageModel | undefined;
  readonly #today: string;
  readonly #llmTimeoutMs: number;
  readonly #maxVisits: number;
  readonly #captured: Record<string, unknown> = {};
  readonly #toolValues: Record<string, unknown> = {};
  readonly #visits = new Map<string, number>();
  readonly #path: string[] = [];
  #waiting: Waiting = { kind: 'idle' };
  #outcome: { key: string; label: string } | undefined;
  #lastCallerText: string | undefined;
  #busy = false;

  /** `flow` must have passed validateFlow. */
  constructor(flow: FlowDefinition, options: FlowExecutorOptions = {}) {
    this.#flow = flow;
    this.#variables = options.variables ?? {};
    this.#llm = options.llm;
    this.#today = options.today ?? isoDate(new Date());
    this.#llmTimeoutMs = options.llmTimeoutMs ?? DEFAULT_LLM_TIMEOUT_MS;
    this.#maxVisits = flow.maxStepVisits ?? DEFAULT_MAX_STEP_VISITS;
  }

  /** What the flow is waiting for. */
  get status(): FlowStatus {
    return this.#waiting.kind;
  }

  /** Runs from the start step up to the first step that waits. */
  start(): Promise<FlowActions> {
    return this.#turn('idle', (actions) => this.#enter(this.#flow.start, actions));
  }

  /** The caller's turn. Ignored (empty actions) while the flow is not listening, e.g. during a tool call. */
  async onCallerTurn(turn: CallerTurn): Promise<FlowActions> {
    if (this.#waiting.kind !== 'input') return { say: [] };
    const text = turn.text?.trim() || undefined;
    const dtmf = turn.dtmf || undefined;
    return this.#turn('input', async (actions) => {
      // Set first: a knowledge step reached from this turn takes these words as its question.
      if (text) this.#lastCallerText = text;
      const waiting = this.#waiting as Extract<Waiting, { kind: 'input' }>;
      const step = this.#step(waiting.step);
      if (step.kind === 'ask') await this.#answerAsk(waiting, step, { text, dtmf }, actions);
      else if (step.kind === 'branch') await this.#answerBranch(waiting, step, { text, dtmf }, actions);
      else if (step.kind === 'knowledge') this.#askKnowledge(waiting.step, step, text, actions);
    });
  }

  /** The outcome of the tool call last requested; `result` is its answer (JSON text is opened). */
  onToolResult(ok: boolean, result?: unknown): Promise<FlowActions> {
    return this.#turn('tool', async (actions) => {
      const waiting = this.#waiting as Extract<Waiting, { kind: 'tool' }>;
      const step = this.#step(waiting.step);
      if (step.kind === 'knowledge') {
        const answer = ok ? await this.#answerFrom(waiting.question ?? '', result) : undefined;
        actions.say.push(answer ?? this.#fill(step.notFound ?? DEFAULT_NOT_FOUND_TEXT));
        return this.#enter(step.next, actions);
      }
      if (step.kind !== 'tool') return;
      if (ok && step.saveAs) Object.assign(this.#toolValues, resultVariables(step.saveAs, result));
      this.#enter(ok ? step.next : step.onFailure, actions);
    });
  }

  /** Whether the transfer requested by `handover` connected. */
  onHandoverResult(ok: boolean): Promise<FlowActions> {
    return this.#turn('handover', async (actions) => {
      const step = this.#step((this.#waiting as Extract<Waiting, { kind: 'handover' }>).step) as StepOfKind<'handover'>;
      if (!ok) return this.#enter(step.onFailure, actions);
      const outcome = handoverOutcome(step);
      this.#finish(outcome, undefined, true, actions);
    });
  }

  result(): FlowResult {
    const outcome = this.#outcome ?? NO_RESULT_OUTCOME;
    return {
      outcomeKey: outcome.key,
      outcomeLabel: outcome.label,
      captured: { ...this.#captured },
      flowPath: [...this.#path],
      ended: this.#outcome !== undefined,
      resultSource: 'flow',
    };
  }

  /** One call at a time, in the state it belongs to. */
  async #turn(expected: FlowStatus, run: (actions: FlowActions) => Promise<void> | void): Promise<FlowActions> {
    if (this.#busy) throw new FlowStateError('the flow is still handling the previous call; await it first');
    if (this.#waiting.kind !== expected) {
      throw new FlowStateError(
        `the flow is not waiting for ${expected === 'idle' ? 'start' : expected} (it is ${this.#waiting.kind})`,
      );
    }
    this.#busy = true;
    const actions: FlowActions = { say: [] };
    try {
      await run(actions);
    } finally {
      this.#busy = false;
    }
    return actions;
  }

  #step(key: string): FlowStep {
    return this.#flow.steps[key]!;
  }

  #values(): Variables {
    return { ...this.#variables, ...this.#toolValues, ...this.#captured };
  }

  #fill(text: string): string {
    return fillSpoken(text, this.#values());
  }

  /** A line to speak, filled in; one whose placeholders all came out empty is not spoken as silence. */
  #say(actions: FlowActions, text: string): void {
    const line = this.#fill(text);
    if (line) actions.say.push(line);
  }

  /** Follows steps from `key` until one waits; the loop guard ends the flow when a step is entered too often. */
  #enter(key: string, actions: FlowActions): void {
    for (let current = key; ; ) {
      const step = this.#flow.steps[current];
      const visits = (this.#visits.get(current) ?? 0) + 1;
      this.#visits.set(current, visits);
      if (!step || visits > this.#maxVisits) return this.#finish(NO_RESULT_OUTCOME, undefined, false, actions);
      this.#path.push(current);
      switch (step.kind) {
        case 'say':
          this.#say(actions, step.text);
          current = step.next;
          continue;
        case 'ask':
          this.#say(actions, step.question);
          return this.#listen(current, step.maxDigits ?? DEFAULT_MAX_DIGITS[step.field.type], actions);
        case 'branch': {
          if (listens(step)) {
            if (step.prompt) this.#say(actions, step.prompt);
            return this.#listen(current, branchDigits(step), actions);
          }
          current =
            step.conditions.find((c) => c.kind === 'value' && valueHolds(c, this.#captured, this.#lookups()))?.next ??
            step.default;
          continue;
        }
        case 'tool':
          if (step.say) this.#say(actions, step.say);
          actions.toolCall = {
            stepKey: current,
            tool: step.tool,
            arguments: buildArguments(step.arguments, this.#values()),
          };
          this.#waiting = { kind: 'tool', step: current };
          return;
        case 'knowledge':
          if (step.prompt || !this.#lastCallerText) {
            if (step.prompt) this.#say(actions, step.prompt);
            return this.#listen(current, 0, actions);
          }
          return this.#askKnowledge(current, step, this.#lastCallerText, actions);
        case 'handover':
          if (step.text) this.#say(actions, step.text);
          actions.handover = { stepKey: current };
          this.#waiting = { kind: 'handover', step: current };
          return;
        case 'end':
          return this.#finish(step.outcome, step.text, false, actions);
      }
    }
  }

  #lookups(): Variables {
    return { ...this.#variables, ...this.#toolValues };
  }

  #listen(step: string, maxDigits: number, actions: FlowActions): void {
    this.#waiting = { kind: 'input', step, attempts: 0 };
    actions.listen = { stepKey: step, maxDigits };
  }

  #finish(
    outcome: { key: string; label: string },
    closing: string | undefined,
    handedOver: boolean,
    actions: FlowActions,
  ): void {
    this.#outcome = { key: outcome.key, label: outcome.label };
    this.#waiting = { kind: 'ended' };
    actions.end = {
      outcomeKey: outcome.key,
      outcomeLabel: outcome.label,
      ...(closing ? { closing: this.#fill(closing) } : {}),
      handedOver,
    };
  }

  /** Listens again with the re-prompt while retries remain; true when it did. */
  #retry(
    waiting: Extract<Waiting, { kind: 'input' }>,
    retries: number,
    reprompt: string | undefined,
    actions: FlowActions,
    digits: number,
  ): boolean {
    if (waiting.attempts >= retries) return false;
    waiting.attempts++;
    if (reprompt) this.#say(actions, reprompt);
    actions.listen = { stepKey: waiting.step, maxDigits: digits };
    return true;
  }

  async #answerAsk(
    waiting: Extract<Waiting, { kind: 'input' }>,
    step: StepOfKind<'ask'>,
    turn: CallerTurn,
    actions: FlowActions,
  ): Promise<void> {
    const value = await this.#capture(step, turn);
    if (value !== undefined) {
      this.#captured[step.field.key] = value;
      return this.#enter(step.next, actions);
    }
    const digits = step.maxDigits ?? DEFAULT_MAX_DIGITS[step.field.type];
    if (this.#retry(waiting, step.retries ?? DEFAULT_ASK_RETRIES, step.reprompt ?? step.question, actions, digits))
      return;
    this.#enter(step.fallback ?? step.next, actions);
  }

  /** Keys first (exact), then the transcript by patterns and readers, with the model where it helps. */
  async #capture(step: StepOfKind<'ask'>, turn: CallerTurn): Promise<unknown> {
    const { field } = step;
    const methods: readonly string[] = step.capture ?? CAPTURE_METHODS;
    if (turn.dtmf && methods.includes('dtmf')) {
      const value = captureFromDtmf(field, turn.dtmf);
      if (value !== undefined) return value;
    }
    if (!turn.text) return undefined;
    const useModel = methods.includes('llm') && this.#llm !== undefined;
    // Only the model can tell a name from "uh, it's" around it; for typed fields the readers are exact and instant.
    if (useModel && field.type === 'text') {
      const value = await this.#extract(field, turn.text);
      if (value !== undefined) return value;
    }
    const readTranscript = methods.includes('pattern') || (methods.includes('llm') && this.#llm === undefined);
    if (readTranscript) {
      const value = captureFromText(field, turn.text, this.#today, step.patterns);
      if (value !== undefined) return value;
    }
    return useModel && field.type !== 'text' ? this.#extract(field, turn.text) : undefined;
  }

  async #extract(field: CapturedField, text: string): Promise<unknown> {
    const value = await this.#ask((llm) => llm.extractField(text, field));
    return normaliseExtracted(field, value, this.#today);
  }

  async #answerBranch(
    waiting: Extract<Waiting, { kind: 'input' }>,
    step: StepOfKind<'branch'>,
    turn: CallerTurn,
    actions: FlowActions,
  ): Promise<void> {
    const next = await this.#decide(step, turn);
    if (next !== undefined) return this.#enter(next, actions);
    if (this.#retry(waiting, step.retries ?? 0, step.reprompt ?? step.prompt, actions, branchDigits(step))) return;
    this.#enter(step.default, actions);
  }

  /** The first condition that holds, in order; the intent is classified once, when the first intent condition is reached. */
  async #decide(step: StepOfKind<'branch'>, turn: CallerTurn): Promise<string | undefined> {
    let intent: string | undefined | null = null;
    for (const condition of step.conditions) {
      switch (condition.kind) {
        case 'value':
          if (valueHolds(condition, this.#captured, this.#lookups())) return condition.next;
          break;
        case 'dtmf':
          if (turn.dtmf && (turn.dtmf === condition.digits || turn.dtmf.replace(/#$/, '') === condition.digits))
            return condition.next;
          break;
        case 'keywords':
          if (turn.text && condition.keywords.some((keyword) => containsPhrase(turn.text!, keyword)))
            return condition.next;
          break;
        case 'intent':
          if (intent === null) intent = turn.text ? await this.#classify(step, turn.text) : undefined;
          if (intent === condition.intent) return condition.next;
          break;
      }
    }
    return undefined;
  }

  async #classify(step: StepOfKind<'branch'>, text: string): Promise<string | undefined> {
    const intents = step.conditions.filter((c) => c.kind === 'intent');
    const names = new Set(intents.map((c) => c.intent));
    const chosen = await this.#ask((llm) =>
      llm.classifyIntent(
        text,
        intents.map(({ intent, description, examples }) => ({ intent, description, examples })),
      ),
    );
    // A model naming an intent that is not on offer is no answer, and the examples decide.
    return typeof chosen === 'string' && names.has(chosen) ? chosen : intentByExamples(text, intents);
  }

  #askKnowledge(key: string, step: StepOfKind<'knowledge'>, question: string | undefined, actions: FlowActions): void {
    if (!question) {
      this.#say(actions, step.notFound ?? DEFAULT_NOT_FOUND_TEXT);
      return this.#enter(step.next, actions);
    }
    actions.toolCall = { stepKey: key, tool: SEARCH_TOOLS[step.source ?? 'knowledge'], arguments: { query: question } };
    this.#waiting = { kind: 'tool', step: key, question };
  }

  async #answerFrom(question: string, results: unknown): Promise<string | undefined> {
    const answer = await this.#ask((llm) => llm.answer(question, results));
    return (typeof answer === 'string' && answer.trim()) || readOutTopHit(results);
  }

  /** A model call that cannot break the call: no model, an error or a timeout all give undefined. */
  async #ask<T>(call: (llm: FlowLanguageModel) => Promise<T>): Promise<T | undefined> {
    if (!this.#llm) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => {
      timer = setTimeout(resolve, this.#llmTimeoutMs, undefined);
    });
    try {
      return await Promise.race([call(this.#llm), timeout]);
    } catch {
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Keys a branch listens for: its longest dtmf condition, at least one so a single key can pick a default. */
function branchDigits(step: StepOfKind<'branch'>): number {
  return Math.max(1, ...step.conditions.map((c) => (c.kind === 'dtmf' ? c.digits.replace(/#$/, '').length : 0)));
}
