/**
 * The requests one stream is running (LLM turns, TTS clauses), each cancellable on its own by the session's
 * `cancel` and all of them when the stream closes. Shared by the worker kinds that serve requests.
 */
import type { StreamContext } from './worker-host.ts';

export class RequestRunner {
  readonly #context: StreamContext;
  readonly #running = new Map<number, AbortController>();

  constructor(context: StreamContext) {
    this.#context = context;
  }

  /**
   * Runs `work` for `requestId` with a signal that aborts on `cancel(requestId)` or when the stream closes.
   * `onError` reports a failure unless the request was cancelled.
   */
  run(requestId: number, work: (signal: AbortSignal) => Promise<void>, onError: (error: unknown) => void): void {
    const abort = new AbortController();
    this.#running.set(requestId, abort);
    const onStreamClosed = () => abort.abort();
    this.#context.signal.addEventListener('abort', onStreamClosed, { once: true });
    void work(abort.signal)
      .catch((error: unknown) => {
        if (!abort.signal.aborted) onError(error);
      })
      .finally(() => {
        this.#context.signal.removeEventListener('abort', onStreamClosed);
        this.#running.delete(requestId);
      });
  }

  cancel(requestId: number): void {
    this.#running.get(requestId)?.abort();
  }

  cancelAll(): void {
    for (const abort of this.#running.values()) abort.abort();
    this.#running.clear();
  }
}
