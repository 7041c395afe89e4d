/**
 * The OpenAI chat-completions wire format, both ways: our LlmRequest as the JSON body of
 * `POST {baseUrl}/chat/completions` with `stream: true`, and the streamed `chat.completion.chunk` objects back as
 * LlmEvents. Text deltas become tokens at once; tool-call fragments are assembled and released as complete calls
 * when the choice finishes; `done` waits for `data: [DONE]` because the usage chunk (`stream_options.include_usage`,
 * `choices: []`) comes after the finishing chunk.
 */
import type { ChatMessage, LlmEvent, LlmRequest, LlmUsage } from '../llm-provider.ts';
import { ProviderError } from '../provider-error.ts';
import { ToolCallAssembler, type ToolCallFragment } from './tool-call-assembler.ts';

/** The JSON body for a streamed completion. */
export function chatRequestBody(request: LlmRequest, model: string, includeUsage: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.model ?? model,
    messages: request.messages.map(toWireMessage),
    stream: true,
  };
  if (includeUsage) body.stream_options = { include_usage: true };
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
  }
  if (request.temperature !== undefined) body.temperature = request.temperature;
  // `max_tokens` rather than OpenAI's newer `max_completion_tokens`: every compatible server reads this one.
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  return body;
}

function toWireMessage(message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case 'assistant':
      if (message.toolCalls === undefined || message.toolCalls.length === 0) {
        return { role: 'assistant', content: message.content };
      }
      return {
        role: 'assistant',
        // The API wants null, not "", for an assistant turn that only called tools.
        content: message.content === '' ? null : message.content,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        })),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    default:
      return { role: message.role, content: message.content };
  }
}

/**
 * The human message of an error body: OpenAI's `{error: {message}}`, vLLM's `{message}`, Ollama's `{error: "…"}`.
 */
export function readChatErrorMessage(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const error = body.error;
  if (isRecord(error) && typeof error.message === 'string') return error.message;
  if (typeof error === 'string') return error;
  return typeof body.message === 'string' ? body.message : undefined;
}

type FinishReason = Extract<LlmEvent, { type: 'done' }>['finishReason'];

const FINISH_REASONS: Readonly<Record<string, FinishReason>> = {
  stop: 'stop',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  length: 'length',
};

/** Reads one streamed completion, one SSE `data` payload at a time. */
export class ChatStreamReader {
  readonly #provider: string;
  readonly #tools = new ToolCallAssembler();
  #chunks = 0;
  #finish: FinishReason | undefined;
  #usage: LlmUsage | undefined;
  #done = false;

  constructor(provider: string) {
    this.#provider = provider;
  }

  /** True once `data: [DONE]` arrived: nothing after it matters. */
  get done(): boolean {
    return this.#done;
  }

  /** The events one `data` payload yields; throws a ProviderError for a malformed or failing stream. */
  read(data: string): LlmEvent[] {
    if (this.#done) return [];
    if (data.trim() === '[DONE]') return this.end();
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch (err) {
      throw new ProviderError('bad_response', this.#provider, 'a stream event is not JSON', { cause: err });
    }
    if (!isRecord(chunk)) throw new ProviderError('bad_response', this.#provider, 'a stream event is not an object');
    this.#chunks += 1;
    // Servers report failures that happen after the 200 (overload, a crashed worker) as an event with `error`.
    if (chunk.error !== undefined && chunk.error !== null) {
      const detail = readChatErrorMessage(chunk) ?? 'no message';
      throw new ProviderError('upstream_failed', this.#provider, `error event mid-stream: ${detail}`);
    }
    if (isRecord(chunk.usage)) this.#usage = toUsage(chunk.usage);
    const events: LlmEvent[] = [];
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    const choice = choices.find((c) => isRecord(c) && (c.index === undefined || c.index === 0));
    if (!isRecord(choice)) return events;
    const delta = isRecord(choice.delta) ? choice.delta : {};
    // `reasoning_content` (DeepSeek, vLLM reasoning parsers) is the model thinking: never spoken, so not read.
    if (typeof delta.content === 'string' && delta.content !== '') events.push({ type: 'token', text: delta.content });
    if (Array.isArray(delta.tool_calls)) {
      for (const fragment of delta.tool_calls) if (isRecord(fragment)) this.#tools.add(fragment as ToolCallFragment);
    }
    if (typeof choice.finish_reason === 'string' && this.#finish === undefined) {
      this.#finish = FINISH_REASONS[choice.finish_reason] ?? 'other';
      events.push(...this.#releaseToolCalls());
    }
    return events;
  }

  /**
   * The body ended (or `[DONE]` arrived): the final `done`, or a ProviderError when the stream stopped before the
   * model finished — a cut-off answer must not pass for a complete one.
   */
  end(): LlmEvent[] {
    if (this.#done) return [];
    this.#done = true;
    if (this.#finish === undefined) {
      if (this.#chunks === 0)
        throw new ProviderError('bad_response', this.#provider, 'the response held no stream events');
      throw new ProviderError('upstream_failed', this.#provider, 'the stream ended before the model finished');
    }
    return [{ type: 'done', finishReason: this.#finish, ...(this.#usage === undefined ? {} : { usage: this.#usage }) }];
  }

  #releaseToolCalls(): LlmEvent[] {
    if (!this.#tools.started) return [];
    const result = this.#tools.finish();
    if ('unnamedIndex' in result) {
      throw new ProviderError('bad_response', this.#provider, `tool call ${result.unnamedIndex} has no function name`);
    }
    // Some servers (older Ollama, llama.cpp) say `stop` after calling tools; the calls are what counts.
    if (this.#finish === 'stop') this.#finish = 'tool_calls';
    return result.calls.map((call) => ({ type: 'tool_call', call }));
  }
}

function toUsage(usage: Record<string, unknown>): LlmUsage {
  const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  const promptTokens = count(usage.prompt_tokens);
  const completionTokens = count(usage.completion_tokens);
  const total = count(usage.total_tokens);
  return { promptTokens, completionTokens, totalTokens: total > 0 ? total : promptTokens + completionTokens };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
