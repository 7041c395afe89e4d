/**
 * An LlmProvider that streams from a primary model and, when the primary fails before its first token or tool
 * call, streams the same request from a secondary. A request's explicit `model` names a primary model, so the
 * secondary gets the request without it and uses its own configured model.
 */
import type { LlmEvent, LlmProvider, LlmRequest } from '../llm-provider.ts';
import type { FallbackOptions } from './fallback-options.ts';

export class FallbackLlm implements LlmProvider {
  readonly name: string;
  readonly #primary: LlmProvider;
  readonly #secondary: LlmProvider;
  readonly #options: FallbackOptions;

  constructor(primary: LlmProvider, secondary: LlmProvider, options: FallbackOptions = {}) {
    this.name = primary.name;
    this.#primary = primary;
    this.#secondary = secondary;
    this.#options = options;
  }

  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<LlmEvent> {
    return this.#stream(request, signal);
  }

  async *#stream(request: LlmRequest, signal: AbortSignal): AsyncGenerator<LlmEvent, void, undefined> {
    let produced = false;
    try {
      for await (const event of this.#primary.stream(request, signal)) {
        // A bare `done` is a complete (empty) answer, not output that a retry would repeat.
        if (event.type !== 'done') produced = true;
        yield event;
      }
      return;
    } catch (err) {
      if (produced || signal.aborted) throw err;
      this.#options.onFallback?.(err);
    }
    yield* this.#secondary.stream({ ...request, model: undefined }, signal);
  }
}
