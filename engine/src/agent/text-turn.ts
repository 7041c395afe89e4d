/**
 * One written reply of a PROMPT agent (a chat agent): the same rounds as a spoken reply (session/agent-turn.ts) —
 * the model streams, webhook tools run between rounds, at most MAX_TOOL_ROUNDS — but the words go to the reader
 * token by token instead of to a voice. Aborting the signal cancels the model's request and the tools.
 */
import type { ChatMessage, LlmEvent, LlmRequest, ToolCall, ToolDefinition } from '../providers/llm-provider.ts';
import { MAX_TOOL_ROUNDS, runWebhookToolCall, type ToolRecord } from './tool-runner.ts';
import { toolDefinition, type WebhookTool } from './webhook-tool.ts';

/** What a written reply needs of a language model: the LLM workers' client (`LlmClient`) is one. */
export interface TextModel {
  turn(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent>;
}

/** A tool the host itself answers (not a webhook), such as a chat agent's callback request. */
export interface HostTool {
  definition: ToolDefinition;
  /** `argumentsJson` as the model wrote it (possibly malformed); the answer is what the model reads. */
  run(argumentsJson: string, signal: AbortSignal): Promise<{ ok: boolean; content: string }>;
}

export interface TextTurnInput {
  /** The conversation so far, system prompt first, the reader's new message last. */
  messages: readonly ChatMessage[];
  tools: readonly WebhookTool[];
  /** Tools the host answers; a name shared with a webhook tool is the host's. */
  hostTools?: readonly HostTool[];
  model: TextModel;
  signal: AbortSignal;
  /** Each piece of the reply as the model writes it (a space is sent between the words of two rounds). */
  onToken?: (text: string) => void;
  /** Milliseconds since the conversation began, for the tools' records; default 0. */
  now?: () => number;
}

export interface TextTurnResult {
  /** The reply as the reader saw it. */
  text: string;
  /** The messages the reply adds to the conversation: each round's assistant message and its tool results. */
  messages: ChatMessage[];
  tools: ToolRecord[];
  timings: {
    /** performance.now() when the first request went to the model, and when its first token arrived. */
    llmSentAt?: number;
    firstTokenAt?: number;
  };
  /** The model's token counts, summed over the rounds, when it reported them. */
  usage: { promptTokens: number; completionTokens: number };
}

export async function runTextTurn(input: TextTurnInput): Promise<TextTurnResult> {
  const result: TextTurnResult = { text: '', messages: [], tools: [], timings: {}, usage: emptyUsage() };
  const hostTools = input.hostTools ?? [];
  const definitions: ToolDefinition[] = [
    ...input.tools.filter((t) => !hostTools.some((h) => h.definition.name === t.key)).map(toolDefinition),
    ...hostTools.map((h) => h.definition),
  ];
  const messages = [...input.messages];
  const emit = (piece: string) => {
    result.text += piece;
    input.onToken?.(piece);
  };
  for (let round = 0; round < MAX_TOOL_ROUNDS && !input.signal.aborted; round += 1) {
    const calls: ToolCall[] = [];
    let text = '';
    result.timings.llmSentAt ??= performance.now();
    const request: LlmRequest = { messages, ...(definitions.length && { tools: definitions }) };
    for await (const event of input.model.turn(request, input.signal)) {
      if (event.type === 'token') {
        result.timings.firstTokenAt ??= performance.now();
        // Two rounds' words are two sentences: keep them apart for the reader.
        if (!text && result.text && !/\s$/.test(result.text) && !/^\s/.test(event.text)) emit(' ');
        text += event.text;
        emit(event.text);
      } else if (event.type === 'tool_call') {
        calls.push(event.call);
      } else if (event.type === 'done' && event.usage) {
        result.usage.promptTokens += event.usage.promptTokens ?? 0;
        result.usage.completionTokens += event.usage.completionTokens ?? 0;
      }
    }
    const assistant: ChatMessage = {
      role: 'assistant',
      content: text.trim(),
      ...(calls.length && { toolCalls: calls }),
    };
    messages.push(assistant);
    result.messages.push(assistant);
    if (calls.length === 0 || input.signal.aborted) break;
    for (const call of calls) {
      const { content, record } = await runToolCall(call, input, hostTools);
      result.tools.push(record);
      const toolMessage: ChatMessage = { role: 'tool', toolCallId: call.id, content };
      messages.push(toolMessage);
      result.messages.push(toolMessage);
    }
  }
  result.text = result.text.trim();
  return result;
}

async function runToolCall(
  call: ToolCall,
  input: TextTurnInput,
  hostTools: readonly HostTool[],
): Promise<{ content: string; record: ToolRecord }> {
  const atMs = input.now?.() ?? 0;
  const host = hostTools.find((h) => h.definition.name === call.name);
  if (!host) return runWebhookToolCall(call, input.tools, input.signal, atMs);
  const started = performance.now();
  const outcome = await host.run(call.arguments, input.signal);
  const durationMs = Math.round(performance.now() - started);
  const record = {
    name: call.name,
    arguments: call.arguments,
    ok: outcome.ok,
    result: outcome.content,
    durationMs,
    atMs,
  };
  return { content: outcome.content, record };
}

function emptyUsage(): TextTurnResult['usage'] {
  return { promptTokens: 0, completionTokens: 0 };
}
