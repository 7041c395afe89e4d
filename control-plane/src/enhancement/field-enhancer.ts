/**
 * Rewrites agent fields with the installation's language model, reached over the bus through the LLM workers
 * (`LlmClient`), never by calling a vendor from the control plane. Each field is one stream with one turn; the
 * fields of a request run in parallel, and the first failure cancels the others (all or nothing).
 */
import type { Bus } from '@parley/engine/bus';
import { ApiError, validationError, type FieldProblem } from '../errors.ts';
import { isNoWorker, noLanguageModel, openLanguageModel } from '../language-model/open-llm.ts';
import { enhancementPrompt, type FieldType } from './field-prompts.ts';

/**
 * How long a request waits for an LLM worker to take its stream, in ms. A running worker answers in milliseconds;
 * the clients' own deadline (8 s) is sized for calls riding out a worker failover, while here a person is waiting
 * on a settings page to learn that no language model is running.
 */
export const LLM_WORKER_WAIT_MS = 3_000;
/**
 * Longest answer asked of the model, in tokens. The longest accepted field (8,000 characters) is about 2,000
 * tokens of English; a rewrite is rarely longer than its original, and an answer cut at this limit is refused.
 */
const ENHANCEMENT_MAX_TOKENS = 4_096;
/** Low enough that the model stays close to the original's facts, high enough that it does rewrite. */
const ENHANCEMENT_TEMPERATURE = 0.4;

/** `{{name}}` placeholders as the engine fills them (spaces allowed inside the braces). */
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

export interface FieldToEnhance {
  fieldType: FieldType;
  text: string;
  /** Where the field is in the request body, for messages: `text`, or `fields.2.text`. */
  path: string;
}

export interface EnhancedField {
  fieldType: FieldType;
  originalText: string;
  enhancedText: string;
}

export class FieldEnhancer {
  readonly #bus: Bus;

  constructor(bus: Bus) {
    this.#bus = bus;
  }

  /**
   * Rewrites every field in parallel; results in the order given. Rejects with the first failure (400 for empty
   * text, 503 with no language model, 500 when the model fails) after cancelling the other rewrites.
   * @param traceId goes into the LLM workers' logs as the stream's call id
   * @param signal aborts every rewrite (the client went away)
   */
  async enhance(fields: readonly FieldToEnhance[], traceId: string, signal: AbortSignal): Promise<EnhancedField[]> {
    const empty: FieldProblem[] = fields
      .filter((f) => f.text.trim() === '')
      .map((f) => ({ field: f.path, message: 'must not be empty' }));
    if (empty.length > 0) throw validationError(empty);
    const cancel = new AbortController();
    const onAbort = () => cancel.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await Promise.all(
        fields.map((field) =>
          this.#rewrite(field, traceId, cancel.signal).catch((error: unknown) => {
            cancel.abort();
            throw failure(error, field);
          }),
        ),
      );
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  async #rewrite(field: FieldToEnhance, traceId: string, signal: AbortSignal): Promise<EnhancedField> {
    const client = await openLanguageModel(this.#bus, traceId, LLM_WORKER_WAIT_MS);
    try {
      let text = '';
      let finishReason: string | undefined;
      const turn = client.turn(
        {
          messages: [
            { role: 'system', content: enhancementPrompt(field.fieldType) },
            { role: 'user', content: field.text },
          ],
          temperature: ENHANCEMENT_TEMPERATURE,
          maxTokens: ENHANCEMENT_MAX_TOKENS,
        },
        signal,
      );
      for await (const event of turn) {
        if (event.type === 'token') text += event.text;
        else if (event.type === 'done') finishReason = event.finishReason;
      }
      // Cancelled because another field failed or the client left: nobody reads this result.
      if (signal.aborted) return { fieldType: field.fieldType, originalText: field.text, enhancedText: '' };
      if (finishReason === 'length') throw modelFailure(field, 'the answer was cut off at the length limit');
      const enhancedText = unwrap(text.trim(), field.text.trim());
      if (enhancedText === '') throw modelFailure(field, 'the answer was empty');
      checkPlaceholders(field, enhancedText);
      return { fieldType: field.fieldType, originalText: field.text, enhancedText };
    } finally {
      client.close();
    }
  }
}

function modelFailure(field: FieldToEnhance, message: string, cause?: unknown): ApiError {
  return new ApiError('ai_model_failed', `AI model failure on ${field.fieldType} (${field.path}): ${message}`, {
    cause,
  });
}

/** The refusal a failed rewrite becomes: 503 when no worker could be reached, else the model's own message. */
function failure(error: unknown, field: FieldToEnhance): ApiError {
  if (error instanceof ApiError) return error;
  if (isNoWorker(error)) return noLanguageModel(LLM_WORKER_WAIT_MS, error);
  return modelFailure(field, error instanceof Error ? error.message : String(error), error);
}

/**
 * A rewrite whose `{{placeholders}}` differ from the original's would break the agent's calls once saved (a
 * dropped one loses a per-call value, an invented one is never filled), so it is refused rather than returned.
 */
function checkPlaceholders(field: FieldToEnhance, enhanced: string): void {
  const before = placeholderNames(field.text);
  const after = placeholderNames(enhanced);
  const dropped = [...before].filter((name) => !after.has(name));
  const added = [...after].filter((name) => !before.has(name));
  const problems = [
    ...(dropped.length ? [`dropped ${dropped.map((n) => `{{${n}}}`).join(', ')}`] : []),
    ...(added.length ? [`added ${added.map((n) => `{{${n}}}`).join(', ')}`] : []),
  ];
  if (problems.length) throw modelFailure(field, `the rewrite ${problems.join(' and ')}; try again`);
}

function placeholderNames(text: string): Set<string> {
  return new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]!));
}

/** Models sometimes wrap their answer in quotes or a code fence despite the prompt; the original was not. */
function unwrap(text: string, original: string): string {
  const fence = /^```[\w-]*\n([\s\S]*?)\n```$/.exec(text);
  if (fence && !original.startsWith('```')) return fence[1]!.trim();
  for (const [open, close] of [
    ['"', '"'],
    ['“', '”'],
  ] as const) {
    if (text.length > 1 && text.startsWith(open) && text.endsWith(close) && !original.startsWith(open)) {
      const inner = text.slice(open.length, -close.length);
      if (!inner.includes(open) && !inner.includes(close)) return inner.trim();
    }
  }
  return text;
}
