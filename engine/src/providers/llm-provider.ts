/**
 * Language models, OpenAI chat-completions style: messages and tools in, a stream of tokens and tool calls out.
 */

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: readonly ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export interface ToolCall {
  id: string;
  name: string;
  /** JSON text as the model wrote it; may be malformed, the caller validates. */
  arguments: string;
}

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface LlmRequest {
  messages: readonly ChatMessage[];
  tools?: readonly ToolDefinition[];
  /** Overrides the configured model. */
  model?: string;
  temperature?: number;
  maxTokens?: number;
}

export type LlmEvent =
  | { type: 'token'; text: string }
  /** A complete tool call (arguments assembled from the streamed fragments). */
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'done'; finishReason: 'stop' | 'tool_calls' | 'length' | 'other'; usage?: LlmUsage };

export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface LlmProvider {
  /** Identifier for logs: the base URL's host and the model. */
  readonly name: string;
  /**
   * The model it runs when a request names none, announced in its worker's heartbeat (no key, no endpoint); a
   * provider without one is announced by its name.
   */
  readonly model?: string;
  /** Streams one completion. Aborting `signal` cancels the HTTP request and ends the iterable. */
  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent>;
}
