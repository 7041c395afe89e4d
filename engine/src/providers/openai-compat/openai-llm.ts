/**
 * LlmProvider over any OpenAI-compatible chat-completions endpoint: OpenAI, Groq, Together, vLLM, llama.cpp
 * server, Ollama (`/v1`). One streamed `POST {baseUrl}/chat/completions` per turn, read as server-sent events.
 */
import { VendorCall, type CallTimeouts } from '../cloud/vendor-call.ts';
import type { LlmEvent, LlmProvider, LlmRequest } from '../llm-provider.ts';
import { ChatStreamReader, chatRequestBody, readChatErrorMessage } from './chat-wire.ts';
import { SseDecoder } from './sse-decoder.ts';

/**
 * From request to the first token or tool-call fragment, in ms. A caller hears silence all that time; beyond
 * 10 s it is better to fail over to a secondary model (or apologise) than to keep waiting. Local CPU servers with
 * long prompts may need more: raise it per provider through `timeouts`.
 */
export const LLM_FIRST_TOKEN_TIMEOUT_MS = 10_000;
/** Longest gap between two chunks once tokens flow, in ms: a server that stops mid-sentence leaves dead air. */
export const LLM_STALL_TIMEOUT_MS = 10_000;
/** A whole completion, in ms: a spoken reply that takes longer than a minute to write is a runaway. */
export const LLM_TOTAL_TIMEOUT_MS = 60_000;

export interface OpenAiCompatLlmConfig {
  /** Base URL including the API version, for example `https://api.openai.com/v1` or `http://127.0.0.1:8080/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer …`; leave undefined for local servers that take no key. */
  apiKey?: string;
  /** Model id used when a request names none. */
  model: string;
  /**
   * Ask for the final usage chunk (`stream_options.include_usage`). Default true; turn it off only for a server
   * that refuses the field.
   */
  includeUsage?: boolean;
  /** Overrides of LLM_FIRST_TOKEN_TIMEOUT_MS, LLM_STALL_TIMEOUT_MS and LLM_TOTAL_TIMEOUT_MS. */
  timeouts?: Partial<CallTimeouts>;
  /** Extra request headers (an organisation header, a gateway's routing header). */
  headers?: Readonly<Record<string, string>>;
}

export class OpenAiCompatLlm implements LlmProvider {
  readonly name: string;
  readonly model: string;
  readonly #url: string;
  readonly #config: OpenAiCompatLlmConfig;
  readonly #timeouts: CallTimeouts;

  /** @throws TypeError when `baseUrl` is not a URL */
  constructor(config: OpenAiCompatLlmConfig) {
    this.#config = config;
    this.#url = joinUrl(config.baseUrl, 'chat/completions');
    this.name = `${new URL(config.baseUrl).host}/${config.model}`;
    this.model = config.model;
    this.#timeouts = {
      firstOutputMs: config.timeouts?.firstOutputMs ?? LLM_FIRST_TOKEN_TIMEOUT_MS,
      stallMs: config.timeouts?.stallMs ?? LLM_STALL_TIMEOUT_MS,
      totalMs: config.timeouts?.totalMs ?? LLM_TOTAL_TIMEOUT_MS,
    };
  }

  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent> {
    return this.#stream(request, signal);
  }

  async *#stream(request: LlmRequest, signal: AbortSignal): AsyncGenerator<LlmEvent, void, undefined> {
    if (signal.aborted) return;
    const call = new VendorCall(this.name, signal, this.#timeouts);
    try {
      const headers: Record<string, string> = {
        ...this.#config.headers,
        'content-type': 'application/json',
        accept: 'text/event-stream',
      };
      if (this.#config.apiKey !== undefined && this.#config.apiKey !== '') {
        headers.authorization = `Bearer ${this.#config.apiKey}`;
      }
      const body = JSON.stringify(chatRequestBody(request, this.#config.model, this.#config.includeUsage ?? true));
      const response = await call.send(this.#url, { method: 'POST', headers, body }, readChatErrorMessage);
      if (response === undefined) return;

      const sse = new SseDecoder();
      const reader = new ChatStreamReader(this.name);
      try {
        for await (const bytes of call.chunks(response)) {
          // After `[DONE]` the rest of the body (its last newline, the chunked-encoding end) is still read, so
          // the connection goes back to the pool instead of being torn down: a new TLS handshake costs 100 ms.
          if (reader.done) continue;
          for (const data of sse.push(bytes)) {
            for (const event of reader.read(data)) {
              if (event.type !== 'done') call.output();
              yield event;
            }
          }
        }
      } catch (err) {
        if (reader.done) return; // the answer is complete; what happens to the connection after is not ours
        throw err;
      }
      if (call.callerAborted || reader.done) return;
      for (const data of sse.end()) yield* reader.read(data);
      yield* reader.end();
    } finally {
      call.dispose();
    }
  }
}

/** `base` + `path` with exactly one slash between them, whatever `base` ends with. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}
