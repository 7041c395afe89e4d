/**
 * Which agent answers a call: its flow for a FLOW agent (with a flow of the right shape), else the language model
 * when one is configured, else the agent that says it has none. The session asks only the Responder it gets.
 */
import type { CallTool } from '../agent/knowledge-tools.ts';
import type { WebhookTool } from '../agent/webhook-tool.ts';
import type { LlmClient } from '../workers/client/llm-client.ts';
import type { SayOptions, TtsClient } from '../workers/client/tts-client.ts';
import { FlowResponder } from './flow-responder.ts';
import { NoModelResponder } from './no-model-responder.ts';
import { PromptResponder } from './prompt-responder.ts';
import type { Responder, ResponderCall } from './responder.ts';

export function chooseResponder(
  call: ResponderCall,
  deps: { llm: LlmClient | undefined; tts: TtsClient; voice: SayOptions; builtins?: readonly CallTool[] },
): Responder {
  const builtins = deps.builtins ?? [];
  const flow = FlowResponder.forCall(call, deps.llm, builtins);
  if (flow) return flow;
  if (!deps.llm) return new NoModelResponder(call);
  const tools = call.spec.agent.functionTools as WebhookTool[];
  return new PromptResponder(call, { llm: deps.llm, tts: deps.tts, voice: deps.voice, tools, builtins });
}
