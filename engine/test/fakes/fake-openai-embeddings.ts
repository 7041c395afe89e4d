/**
 * `POST /v1/embeddings` of the fake OpenAI-compatible server. It checks the request as OpenAI does (`model` a
 * string, `input` a string or a non-empty array of non-empty strings; else OpenAI's 400) and answers OpenAI's shape
 * (`{ object: "list", data: [{ object: "embedding", index, embedding }], model, usage }`). The vectors come from a
 * small deterministic model: letter trigrams of each word (punctuation dropped, so "Wi-Fi" and "wifi" meet), hashed
 * into FAKE_EMBEDDING_DIMENSIONS and normalised — texts sharing word pieces are near, spelling slips stay close,
 * unrelated texts are far. `failWith(status)` makes the next requests fail as OpenAI does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { openAiError } from './fake-openai-chat.ts';
import { sendJson } from './http-kit.ts';

export const FAKE_EMBEDDING_DIMENSIONS = 256;

/** The fake's embedding of `text` (tests compare against it). */
export function fakeEmbedding(text: string): number[] {
  const vector = new Array<number>(FAKE_EMBEDDING_DIMENSIONS).fill(0);
  const words = text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^\p{L}\p{N}\s]/gu, '')
    .split(/\s+/)
    .filter(Boolean);
  for (const word of words) {
    const padded = `#${word}#`;
    for (let i = 0; i + 3 <= padded.length; i += 1) {
      let hash = 2166136261;
      for (const char of padded.slice(i, i + 3)) hash = Math.imul(hash ^ char.codePointAt(0)!, 16777619) >>> 0;
      vector[hash % FAKE_EMBEDDING_DIMENSIONS]! += 1;
    }
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((v) => v / norm);
}

export interface RecordedEmbeddingsRequest {
  model: string;
  input: string[];
}

export class FakeEmbeddingsEndpoint {
  readonly requests: RecordedEmbeddingsRequest[] = [];
  #failures: number[] = [];

  /** The next `times` requests answer `status` with OpenAI's error body. */
  failWith(status: number, times = 1): this {
    for (let i = 0; i < times; i += 1) this.#failures.push(status);
    return this;
  }

  async handle(_req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
    let body: { model?: unknown; input?: unknown };
    try {
      body = JSON.parse(raw.toString('utf8')) as typeof body;
    } catch {
      return openAiError(res, 400, 'We could not parse the JSON body of your request.', null);
    }
    const failure = this.#failures.shift();
    if (failure !== undefined)
      return openAiError(res, failure, 'The server had an error processing your request.', null);
    if (typeof body.model !== 'string' || !body.model)
      return openAiError(res, 400, "'model' is a required property", 'model');
    const input = typeof body.input === 'string' ? [body.input] : body.input;
    if (!Array.isArray(input) || input.length === 0 || !input.every((t) => typeof t === 'string' && t.length > 0)) {
      return openAiError(res, 400, "'$.input' is invalid. Please check the API reference.", 'input');
    }
    this.requests.push({ model: body.model, input: input as string[] });
    const tokens = (input as string[]).reduce((n, t) => n + Math.ceil(t.length / 4), 0);
    sendJson(res, 200, {
      object: 'list',
      data: (input as string[]).map((text, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(text) })),
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }
}
