/**
 * The agent of a PROMPT call: each turn, the language model writes the reply (agent-turn.ts) — clauses spoken as
 * they are written, tools run between rounds — and the conversation keeps what was said. `end_call` ends the call
 * once the goodbye has played.
 */
import type { CallTool } from '../agent/knowledge-tools.ts';
import type { WebhookTool } from '../agent/webhook-tool.ts';
import type { LlmClient } from '../workers/client/llm-client.ts';
import type { SayOptions, TtsClient } from '../workers/client/tts-client.ts';
import { emptyTurnResult, runAgentTurn } from './agent-turn.ts';
import type { Responder, ResponderCall } from './responder.ts';

export interface PromptResponderDependencies {
  llm: LlmClient;
  tts: TtsClient;
  voice: SayOptions;
  tools: readonly WebhookTool[];
  /** The agent's search tools (knowledge_search, product_search), when its variables list something to search. */
  builtins?: readonly CallTool[];
}

export class PromptResponder implements Responder {
  readonly #call: ResponderCall;
  readonly #deps: PromptResponderDependencies;

  constructor(call: ResponderCall, deps: PromptResponderDependencies) {
    this.#call = call;
    this.#deps = deps;
  }

  start(): Promise<void> {
    return Promise.resolve();
  }

  async respond(turn: number): Promise<void> {
    const call = this.#call;
    const result = emptyTurnResult();
    const speech = call.beginReply(turn, result);
    try {
      await runAgentTurn(
        {
          turn,
          messages: call.conversation,
          tools: this.#deps.tools,
          builtins: this.#deps.builtins,
          llm: this.#deps.llm,
          tts: this.#deps.tts,
          voice: this.#deps.voice,
          outbound: call.outbound,
          speech,
          signal: AbortSignal.any([speech.signal, call.signal]),
          now: () => call.now(),
        },
        result,
      );
      speech.allQueued();
      call.replied(turn, result);
      if (speech.cancelled) return; // the interruption already kept what was heard
      for (const round of result.rounds) call.conversation.push(round.assistant, ...round.toolResults);
      if (result.endCall) await call.endAfterPlayback('agent_ended');
    } catch (error) {
      if (!speech.cancelled) call.fail(error);
    }
  }

  pressed(): boolean {
    return false;
  }

  close(): void {}
}
