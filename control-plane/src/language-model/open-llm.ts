/**
 * Opening an LLM stream for a request someone is waiting on (an analysis, a field rewrite): the LLM workers' client
 * keeps trying up to its own deadline, sized for a call riding out a worker failover, which is far too long to hold
 * an HTTP request. Here the wait is the caller's; past it, or when no worker exists, the answer is a 503 that says
 * what to configure.
 */
import type { Bus } from '@parley/engine/bus';
import { LlmClient, WorkerStreamError } from '@parley/engine/clients';
import { ApiError } from '../errors.ts';

/** An LLM stream, or `unavailable` (503) when no worker takes one within `waitMs`. */
export async function openLanguageModel(bus: Bus, traceId: string, waitMs: number): Promise<LlmClient> {
  const opening = LlmClient.open(bus, traceId);
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), waitMs);
  });
  try {
    const first = await Promise.race([opening, waited]);
    if (first !== 'timeout') return first;
    // The open keeps trying until the client's own deadline; a stream it still gets is closed at once.
    opening.then(
      (late) => late.close(),
      () => {},
    );
    throw noLanguageModel(waitMs);
  } catch (error) {
    if (isNoWorker(error)) throw noLanguageModel(waitMs, error);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** The 503 of a request that needed a language model and found none. */
export function noLanguageModel(waitMs: number, cause?: unknown): ApiError {
  return new ApiError(
    'unavailable',
    `No language model is available: no LLM worker answered within ${waitMs / 1000} s. ` +
      'Configure PARLEY_LLM_BASE_URL and PARLEY_LLM_MODEL and run the llm-worker role.',
    { cause },
  );
}

/** The workers' client gave up because no LLM worker runs (not because the model failed). */
export function isNoWorker(error: unknown): boolean {
  return error instanceof WorkerStreamError && error.code === 'no_worker';
}
