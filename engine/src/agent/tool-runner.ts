/**
 * One tool call the model made, run against the agent's webhook tools: what a spoken reply (session/agent-turn.ts)
 * and a written one (text-turn.ts) share. A call of a tool the agent does not have is answered, never thrown.
 */
import type { ToolCall } from '../providers/llm-provider.ts';
import { callWebhookTool, type WebhookTool } from './webhook-tool.ts';

/** LLM rounds one reply may take (each tool result starts another): a loop of tools is cut off here. */
export const MAX_TOOL_ROUNDS = 4;

/** What happened when a tool ran, for the conversation's record (call events, chat actions). */
export interface ToolRecord {
  name: string;
  arguments: string;
  ok: boolean;
  result: string;
  durationMs: number;
  /** When it started, ms since the conversation began. */
  atMs: number;
}

/** Runs `call` against `tools`; answers what the model reads next and the record of it. */
export async function runWebhookToolCall(
  call: ToolCall,
  tools: readonly WebhookTool[],
  signal: AbortSignal,
  atMs: number,
): Promise<{ content: string; record: ToolRecord }> {
  const tool = tools.find((t) => t.key === call.name);
  if (!tool) {
    const record = {
      name: call.name,
      arguments: call.arguments,
      ok: false,
      result: 'unknown tool',
      durationMs: 0,
      atMs,
    };
    return { content: `There is no tool named ${call.name}.`, record };
  }
  const outcome = await callWebhookTool(tool, call.arguments, signal);
  const record = {
    name: call.name,
    arguments: call.arguments,
    ok: outcome.ok,
    result: outcome.content,
    durationMs: outcome.durationMs,
    atMs,
  };
  return { content: outcome.content, record };
}
