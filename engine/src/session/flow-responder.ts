/**
 * The agent of a FLOW call: the flow (flow-driver.ts), not a language model, decides each reply — it speaks its
 * lines, listens, runs its tools, hands over, and at its end publishes its result and finishes the call. Keys go to
 * the flow (a menu, digits it gathers). A language model, when configured, only helps it understand answers.
 */
import { Value } from '@sinclair/typebox/value';
import type { CallTool } from '../agent/knowledge-tools.ts';
import { callWebhookTool, type WebhookTool } from '../agent/webhook-tool.ts';
import { FlowDefinition } from '../protocol/index.ts';
import { fillTemplate } from '../protocol/template.ts';
import type { LlmClient } from '../workers/client/llm-client.ts';
import { FlowDriver } from './flow-driver.ts';
import { flowLanguageModel } from './flow-language-model.ts';
import type { Responder, ResponderCall } from './responder.ts';

export class FlowResponder implements Responder {
  readonly #call: ResponderCall;
  readonly #driver: FlowDriver;
  readonly #tools: readonly WebhookTool[];
  readonly #builtins: readonly CallTool[];

  /**
   * The responder of a FLOW agent whose flow has the right shape; undefined otherwise. The control plane validated
   * the flow against the agent when it was saved; only its shape is checked here, so a stale snapshot cannot crash
   * the call (a handover without a number, say, simply fails over to its next step).
   */
  static forCall(
    call: ResponderCall,
    llm: LlmClient | undefined,
    builtins: readonly CallTool[] = [],
  ): FlowResponder | undefined {
    const { agent } = call.spec;
    const flow = agent.builderMode === 'FLOW' ? agent.flowDefinition : undefined;
    return flow && Value.Check(FlowDefinition, flow) ? new FlowResponder(call, flow, llm, builtins) : undefined;
  }

  private constructor(
    call: ResponderCall,
    flow: FlowDefinition,
    llm: LlmClient | undefined,
    builtins: readonly CallTool[],
  ) {
    this.#call = call;
    this.#builtins = builtins;
    const { spec } = call;
    this.#tools = spec.agent.functionTools as WebhookTool[];
    this.#driver = new FlowDriver(
      flow,
      { variables: spec.variables, llm: llm && flowLanguageModel(llm, call.signal) },
      {
        speak: (lines) => this.#speakLines(lines),
        runTool: (tool, args) => this.#runTool(tool, args),
        handover: () => (spec.agent.handoverNumber ? call.transfer(spec.agent.handoverNumber) : Promise.resolve(false)),
        finish: async (end, result) => {
          call.publish({
            type: 'result',
            source: 'flow',
            outcomeKey: result.outcomeKey,
            outcomeLabel: result.outcomeLabel,
            captured: result.captured,
            flowPath: result.flowPath,
          });
          if (end.handedOver) return;
          if (end.closing) await this.#speakLines([end.closing]);
          await call.endAfterPlayback('flow_ended');
        },
      },
    );
  }

  start(): Promise<void> {
    return this.#driver.start();
  }

  respond(_turn: number, text: string): Promise<void> {
    return this.#driver.heard(text);
  }

  pressed(digit: string): boolean {
    this.#driver.pressed(digit);
    return true;
  }

  close(): void {
    this.#driver.stop();
  }

  /** The flow's words, one agent line per text, in order. */
  async #speakLines(lines: readonly string[]): Promise<void> {
    for (const text of lines) {
      if (this.#call.closing()) return;
      await this.#call.speakLine(fillTemplate(text, this.#call.spec.variables), `flow-${performance.now()}`);
    }
  }

  async #runTool(tool: string, args: Record<string, unknown>): Promise<{ ok: boolean; content: string }> {
    const atMs = this.#call.now();
    const builtin = this.#builtins.find((t) => t.definition.name === tool);
    const webhook = this.#tools.find((t) => t.key === tool);
    const outcome = builtin
      ? await builtin.run(JSON.stringify(args), this.#call.signal)
      : webhook
        ? await callWebhookTool(webhook, JSON.stringify(args), this.#call.signal)
        : { ok: false, content: `The tool ${tool} is not available on this call.`, durationMs: 0 };
    this.#call.publish({
      type: 'tool_call',
      name: tool,
      arguments: JSON.stringify(args),
      ok: outcome.ok,
      result: outcome.content,
      durationMs: outcome.durationMs,
      atMs,
    });
    return outcome;
  }
}
