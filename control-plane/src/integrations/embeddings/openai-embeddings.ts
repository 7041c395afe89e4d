/**
 * OpenAI's embeddings API (`POST <baseUrl>/embeddings`, `{ model, input: string[] }` → `data[i].embedding`), which
 * OpenAI, vLLM, llama.cpp, Ollama and most hosted models speak. Texts go in batches; each request has a deadline;
 * a refusal or a malformed answer is an EmbeddingsError whose `retryable` says whether another try may work.
 */
import type { Embedder } from '../../knowledge/embeddings/embedder.ts';

/** Texts per request: OpenAI takes up to 2,048 inputs, but smaller batches keep one slow request from stalling all. */
export const EMBEDDINGS_BATCH = 64;
/** One batch's deadline when indexing, ms: a document's batches are background work. */
export const EMBEDDINGS_TIMEOUT_MS = 30_000;
/** Characters of one text sent: about 2,000 tokens, well inside every embeddings model's input limit. */
const MAX_INPUT_CHARS = 8_000;

export class EmbeddingsError extends Error {
  override name = 'EmbeddingsError';
  readonly retryable: boolean;

  constructor(message: string, retryable: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.retryable = retryable;
  }
}

/** OpenAI's text-embedding-3 models put unrelated text around 0.1–0.25 and a passage that answers above 0.3. */
export const DEFAULT_MIN_SIMILARITY = 0.3;

export interface OpenAiEmbedderOptions {
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  /** Default DEFAULT_MIN_SIMILARITY. */
  minSimilarity?: number;
  timeoutMs?: number;
}

export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  readonly minSimilarity: number;
  readonly #options: OpenAiEmbedderOptions;

  constructor(options: OpenAiEmbedderOptions) {
    this.#options = options;
    this.model = options.model;
    this.minSimilarity = options.minSimilarity ?? DEFAULT_MIN_SIMILARITY;
  }

  async embed(texts: string[], signal: AbortSignal, timeoutMs?: number): Promise<number[][]> {
    const vectors: number[][] = [];
    for (let start = 0; start < texts.length; start += EMBEDDINGS_BATCH) {
      vectors.push(...(await this.#batch(texts.slice(start, start + EMBEDDINGS_BATCH), signal, timeoutMs)));
    }
    return vectors;
  }

  async #batch(texts: string[], signal: AbortSignal, timeoutMs?: number): Promise<number[][]> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.#options.apiKey) headers.authorization = `Bearer ${this.#options.apiKey}`;
    let response: Response;
    try {
      response = await fetch(`${this.#options.baseUrl}/embeddings`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.model, input: texts.map((t) => t.slice(0, MAX_INPUT_CHARS) || ' ') }),
        signal: AbortSignal.any([
          signal,
          AbortSignal.timeout(timeoutMs ?? this.#options.timeoutMs ?? EMBEDDINGS_TIMEOUT_MS),
        ]),
      });
    } catch (error) {
      throw new EmbeddingsError('The embeddings endpoint did not answer', true, { cause: error });
    }
    if (!response.ok) {
      const detail = (await response.text().catch(() => '')).slice(0, 300);
      const retryable = response.status === 429 || response.status >= 500;
      throw new EmbeddingsError(`The embeddings endpoint answered ${response.status}: ${detail}`, retryable);
    }
    const body = (await response.json().catch(() => undefined)) as
      | { data?: { index?: number; embedding?: unknown }[] }
      | undefined;
    const data = body?.data;
    if (!Array.isArray(data) || data.length !== texts.length) {
      throw new EmbeddingsError('The embeddings endpoint answered without one embedding per text', false);
    }
    const ordered = [...data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    return ordered.map((item) => {
      const vector = item.embedding;
      if (
        !Array.isArray(vector) ||
        vector.length === 0 ||
        !vector.every((v) => typeof v === 'number' && Number.isFinite(v))
      ) {
        throw new EmbeddingsError('The embeddings endpoint answered an embedding that is not a list of numbers', false);
      }
      return vector as number[];
    });
  }
}
