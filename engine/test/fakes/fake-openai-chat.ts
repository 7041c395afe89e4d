/**
 * `POST /v1/chat/completions` of the fake OpenAI-compatible server. It checks the request as OpenAI does (a
 * client bug gets OpenAI's 400 with its error body, not a silent pass), records it, and answers from a queue of
 * scripts: streamed `chat.completion.chunk` events with tool calls split over several chunks, the usage chunk
 * when `stream_options.include_usage` asked for it, per-chunk delays, stalls, dropped connections, HTTP errors,
 * or raw bytes for malformed streams.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { deferred, sendJson, writePaced, type StreamOutcome } from './http-kit.ts';

export interface ScriptedToolCall {
  id: string;
  name: string;
  /** JSON text; streamed in `argumentPieces` pieces. */
  arguments: string;
  /** Pieces the arguments are cut into, one chunk each. Default 3. */
  argumentPieces?: number;
  /** Cut the name in two chunks as well (OpenAI sends it whole; some compatible servers do not). */
  splitName?: boolean;
}

export interface ChatScript {
  /** The reply text, one chunk per token. */
  tokens?: string[];
  /** Tool calls, streamed after the tokens, each over several chunks. */
  toolCalls?: ScriptedToolCall[];
  /** `finish_reason` of the last choice chunk. Default `tool_calls` when there are calls, else `stop`. */
  finishReason?: string;
  /** The usage chunk's numbers; default counts derived from the request and the tokens. */
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  /** Delay before the response headers, in ms. */
  headerDelayMs?: number;
  /** Delay before each body piece, in ms. */
  chunkDelayMs?: number;
  /** Send this many body pieces, then nothing more while keeping the connection open. */
  stallAfterChunks?: number;
  /** Send this many body pieces, then destroy the connection. */
  dropAfterChunks?: number;
  /** Leave out `data: [DONE]`. */
  omitDone?: boolean;
  /** Answer with an OpenAI error instead of a stream. */
  error?: { status: number; message?: string; type?: string; code?: string | null; retryAfter?: string };
  /** Body pieces sent as they are, as `text/event-stream` (malformed streams, bytes split anywhere). */
  raw?: (string | Uint8Array)[];
}

export interface RecordedChatRequest {
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** Resolves when the exchange is over, saying whether the client hung up before the end. */
  outcome: Promise<StreamOutcome>;
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool', 'developer']);
const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export class FakeChatEndpoint {
  readonly requests: RecordedChatRequest[] = [];
  readonly #scripts: ChatScript[] = [];
  readonly #models: readonly string[] | undefined;

  /** @param models the model ids that exist (others get OpenAI's 404); undefined accepts any */
  constructor(models?: readonly string[]) {
    this.#models = models;
  }

  /** Queues the answers to the next requests, in order. With the queue empty the answer is "OK." */
  enqueue(...scripts: ChatScript[]): this {
    this.#scripts.push(...scripts);
    return this;
  }

  async handle(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return openAiError(res, 400, 'We could not parse the JSON body of your request.', null);
    }
    const problem = validate(body, this.#models);
    if (problem !== undefined) return openAiError(res, problem.status, problem.message, problem.param, problem.code);
    const request = body as Record<string, unknown>;
    const outcome = deferred<StreamOutcome>();
    this.requests.push({ headers: req.headers, body: request, outcome: outcome.promise });

    const script = this.#scripts.shift() ?? { tokens: ['OK', '.'] };
    if (script.headerDelayMs !== undefined) await sleep(script.headerDelayMs);
    if (script.error !== undefined) {
      const { status, message, type, code, retryAfter } = script.error;
      const headers: Record<string, string> = retryAfter === undefined ? {} : { 'retry-after': retryAfter };
      sendJson(
        res,
        status,
        {
          error: {
            message: message ?? `scripted ${status}`,
            type: type ?? 'server_error',
            param: null,
            code: code ?? null,
          },
        },
        headers,
      );
      outcome.resolve({ clientClosedEarly: false });
      return;
    }
    if (request.stream !== true) {
      sendJson(res, 400, {
        error: { message: 'the fake server only streams', type: 'invalid_request_error', param: 'stream', code: null },
      });
      outcome.resolve({ clientClosedEarly: false });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    const includeUsage = (request.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
    const pieces = script.raw ?? streamPieces(script, String(request.model), includeUsage, request);
    outcome.resolve(
      await writePaced(req, res, pieces, {
        delayMs: script.chunkDelayMs,
        stallAfter: script.stallAfterChunks,
        dropAfter: script.dropAfterChunks,
      }),
    );
  }
}

/** The SSE pieces of a scripted answer, one `data:` event each, as OpenAI streams them. */
function streamPieces(
  script: ChatScript,
  model: string,
  includeUsage: boolean,
  request: Record<string, unknown>,
): string[] {
  const id = `chatcmpl-fake${Math.random().toString(36).slice(2, 10)}`;
  const created = Math.floor(Date.now() / 1000);
  const chunk = (choices: unknown[], usage?: unknown): string =>
    `data: ${JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      system_fingerprint: 'fp_fake',
      choices,
      ...(includeUsage ? { usage: usage ?? null } : {}),
    })}\n\n`;
  const choice = (delta: Record<string, unknown>, finish: string | null = null) => [
    { index: 0, delta, logprobs: null, finish_reason: finish },
  ];
  const pieces = [chunk(choice({ role: 'assistant', content: '', refusal: null }))];
  const tokens = script.tokens ?? [];
  for (const token of tokens) pieces.push(chunk(choice({ content: token })));
  for (const [index, call] of (script.toolCalls ?? []).entries()) {
    const cut = call.splitName === true ? Math.ceil(call.name.length / 2) : call.name.length;
    pieces.push(
      chunk(
        choice({
          tool_calls: [
            { index, id: call.id, type: 'function', function: { name: call.name.slice(0, cut), arguments: '' } },
          ],
        }),
      ),
    );
    if (cut < call.name.length)
      pieces.push(chunk(choice({ tool_calls: [{ index, function: { name: call.name.slice(cut) } }] })));
    for (const piece of split(call.arguments, call.argumentPieces ?? 3)) {
      pieces.push(chunk(choice({ tool_calls: [{ index, function: { arguments: piece } }] })));
    }
  }
  const finish = script.finishReason ?? ((script.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop');
  pieces.push(chunk(choice({}, finish)));
  if (includeUsage) {
    const prompt = JSON.stringify(request.messages).length >> 2;
    pieces.push(
      chunk(
        [],
        script.usage ?? {
          prompt_tokens: prompt,
          completion_tokens: tokens.length,
          total_tokens: prompt + tokens.length,
        },
      ),
    );
  }
  if (script.omitDone !== true) pieces.push('data: [DONE]\n\n');
  return pieces;
}

function split(text: string, pieces: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / pieces));
  const out: string[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.slice(at, at + size));
  return out.length > 0 ? out : [''];
}

export function openAiError(
  res: ServerResponse,
  status: number,
  message: string,
  param: string | null,
  code: string | null = null,
): void {
  sendJson(res, status, { error: { message, type: 'invalid_request_error', param, code } });
}

interface Problem {
  status: number;
  message: string;
  param: string | null;
  code?: string;
}

/** The first thing OpenAI would refuse in this request body. */
function validate(body: unknown, models: readonly string[] | undefined): Problem | undefined {
  if (typeof body !== 'object' || body === null) return { status: 400, message: 'body must be an object', param: null };
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || b.model === '')
    return { status: 400, message: 'you must provide a model parameter', param: null };
  if (models !== undefined && !models.includes(b.model)) {
    return {
      status: 404,
      message: `The model \`${b.model}\` does not exist or you do not have access to it.`,
      param: null,
      code: 'model_not_found',
    };
  }
  if (b.stream_options !== undefined && b.stream !== true) {
    return {
      status: 400,
      message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
      param: 'stream_options',
    };
  }
  if (b.temperature !== undefined && (typeof b.temperature !== 'number' || b.temperature < 0 || b.temperature > 2)) {
    return { status: 400, message: 'temperature must be between 0 and 2', param: 'temperature' };
  }
  if (b.max_tokens !== undefined && (!Number.isInteger(b.max_tokens) || (b.max_tokens as number) < 1)) {
    return { status: 400, message: 'max_tokens must be a positive integer', param: 'max_tokens' };
  }
  if (b.tools !== undefined) {
    if (!Array.isArray(b.tools)) return { status: 400, message: 'tools must be an array', param: 'tools' };
    for (const [i, tool] of b.tools.entries()) {
      const fn = (tool as { function?: { name?: unknown; parameters?: unknown } }).function;
      if (
        (tool as { type?: unknown }).type !== 'function' ||
        typeof fn?.name !== 'string' ||
        !FUNCTION_NAME.test(fn.name)
      ) {
        return {
          status: 400,
          message: `Invalid 'tools[${i}]': expected a function with a valid name.`,
          param: `tools[${i}]`,
        };
      }
      if (fn.parameters !== undefined && (typeof fn.parameters !== 'object' || fn.parameters === null)) {
        return {
          status: 400,
          message: `Invalid 'tools[${i}].function.parameters': expected an object.`,
          param: `tools[${i}].function.parameters`,
        };
      }
    }
  }
  return validateMessages(b.messages);
}

function validateMessages(messages: unknown): Problem | undefined {
  if (!Array.isArray(messages) || messages.length === 0) {
    return {
      status: 400,
      message: "Invalid 'messages': empty array. Expected an array with minimum length 1.",
      param: 'messages',
    };
  }
  /** Tool call ids of the last assistant turn still waiting for their tool message. */
  const awaiting = new Set<string>();
  for (const [i, m] of messages.entries()) {
    const message = m as Record<string, unknown>;
    const param = `messages.[${i}]`;
    if (typeof message.role !== 'string' || !ROLES.has(message.role))
      return { status: 400, message: `Invalid value for '${param}.role'.`, param: `${param}.role` };
    if (message.role !== 'tool' && awaiting.size > 0) {
      return {
        status: 400,
        message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...awaiting].join(', ')}`,
        param: 'messages',
      };
    }
    const toolCalls = message.tool_calls;
    const contentOk =
      typeof message.content === 'string' ||
      (message.role === 'assistant' && message.content === null && Array.isArray(toolCalls));
    if (!contentOk) return { status: 400, message: `Invalid type for '${param}.content'.`, param: `${param}.content` };
    if (message.role === 'assistant' && toolCalls !== undefined) {
      if (!Array.isArray(toolCalls) || toolCalls.length === 0)
        return { status: 400, message: `Invalid '${param}.tool_calls'.`, param: `${param}.tool_calls` };
      for (const call of toolCalls as Record<string, unknown>[]) {
        const fn = call.function as { name?: unknown; arguments?: unknown } | undefined;
        if (
          typeof call.id !== 'string' ||
          call.type !== 'function' ||
          typeof fn?.name !== 'string' ||
          typeof fn.arguments !== 'string'
        ) {
          return {
            status: 400,
            message: `Invalid '${param}.tool_calls': each needs id, type "function", function.name and function.arguments (a string).`,
            param: `${param}.tool_calls`,
          };
        }
        awaiting.add(call.id);
      }
    }
    if (message.role === 'tool') {
      if (typeof message.tool_call_id !== 'string' || !awaiting.has(message.tool_call_id)) {
        return {
          status: 400,
          message:
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          param: `${param}.role`,
        };
      }
      awaiting.delete(message.tool_call_id);
    }
  }
  if (awaiting.size > 0) {
    return {
      status: 400,
      message: `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...awaiting].join(', ')}`,
      param: 'messages',
    };
  }
  return undefined;
}
