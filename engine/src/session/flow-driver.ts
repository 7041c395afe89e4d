/**
 * Runs a FLOW agent's flowDefinition inside a call: speaks what the flow says, then does the one thing it asks —
 * listen, run a tool, hand over, or end — and feeds the outcome back. The flow decides; the session speaks,
 * listens and acts.
 */
import { FlowExecutor, type FlowActions, type FlowEnd, type FlowLanguageModel } from '../agent/flow/index.ts';
import type { FlowDefinition } from '../protocol/index.ts';
import type { Variables } from '../protocol/template.ts';

/** What the flow needs of the call. */
export interface FlowHost {
  /** Speaks the lines in order; resolves once they are queued. */
  speak(lines: readonly string[]): Promise<void>;
  runTool(tool: string, args: Record<string, unknown>): Promise<{ ok: boolean; content: string }>;
  /** Transfers the call; false when it could not. */
  handover(): Promise<boolean>;
  /** The flow reached its end: publish its result and finish the call. */
  finish(end: FlowEnd, result: ReturnType<FlowExecutor['result']>): Promise<void>;
}

/** How long the caller has between keypresses before the keys so far count as their answer, ms. */
export const DTMF_INTER_DIGIT_MS = 3_000;

export class FlowDriver {
  readonly #executor: FlowExecutor;
  readonly #host: FlowHost;
  #maxDigits = 0;
  #digits = '';
  #digitTimer: NodeJS.Timeout | undefined;
  #busy: Promise<void> = Promise.resolve();

  constructor(
    flow: FlowDefinition,
    options: { variables: Variables; llm?: FlowLanguageModel; today?: string },
    host: FlowHost,
  ) {
    this.#executor = new FlowExecutor(flow, options);
    this.#host = host;
  }

  get listening(): boolean {
    return this.#executor.status === 'input';
  }

  start(): Promise<void> {
    return this.#serial(async () => this.#act(await this.#executor.start()));
  }

  /** The caller's words at the end of a turn. */
  heard(text: string): Promise<void> {
    return this.#serial(async () => {
      if (this.#executor.status !== 'input') return;
      await this.#act(await this.#executor.onCallerTurn({ text }));
    });
  }

  /** One key; keys are gathered into an answer of the length the step asks for, or until '#' or a pause. */
  pressed(digit: string): void {
    clearTimeout(this.#digitTimer);
    if (digit !== '#') this.#digits += digit;
    const complete = digit === '#' || this.#maxDigits <= 1 || this.#digits.length >= this.#maxDigits;
    if (complete) void this.#deliverDigits();
    else this.#digitTimer = setTimeout(() => void this.#deliverDigits(), DTMF_INTER_DIGIT_MS);
  }

  stop(): void {
    clearTimeout(this.#digitTimer);
  }

  result(): ReturnType<FlowExecutor['result']> {
    return this.#executor.result();
  }

  #deliverDigits(): Promise<void> {
    const dtmf = this.#digits;
    this.#digits = '';
    if (!dtmf) return Promise.resolve();
    return this.#serial(async () => {
      if (this.#executor.status !== 'input') return;
      await this.#act(await this.#executor.onCallerTurn({ dtmf }));
    });
  }

  async #act(first: FlowActions): Promise<void> {
    let actions: FlowActions | undefined = first;
    while (actions) {
      if (actions.say.length) await this.#host.speak(actions.say);
      if (actions.listen) {
        this.#maxDigits = actions.listen.maxDigits;
        return;
      }
      if (actions.toolCall) {
        const outcome = await this.#host.runTool(actions.toolCall.tool, actions.toolCall.arguments);
        actions = await this.#executor.onToolResult(outcome.ok, parse(outcome.content));
      } else if (actions.handover) {
        actions = await this.#executor.onHandoverResult(await this.#host.handover());
      } else if (actions.end) {
        await this.#host.finish(actions.end, this.#executor.result());
        return;
      } else {
        return;
      }
    }
  }

  /** Flow steps run one at a time: a key pressed while a tool runs waits its turn. */
  #serial(work: () => Promise<void>): Promise<void> {
    this.#busy = this.#busy.then(work, work);
    return this.#busy;
  }
}

function parse(content: string): unknown {
  try {
    return JSON.parse(content);
  } catch {
    return content;
  }
}
