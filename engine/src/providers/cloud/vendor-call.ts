/**
 * One HTTP call to a vendor, with our clock and the caller's abort in one place. The call's own AbortController
 * cancels the fetch (and so closes the connection) when the caller aborts, when a deadline passes, or when the
 * consumer stops reading early; afterwards `failure()` tells those apart, so a caller's abort ends the stream
 * quietly while a deadline surfaces as `upstream_timeout` and a dropped connection as `upstream_failed`.
 */
import { ProviderError } from '../provider-error.ts';
import { errorFromResponse, type ErrorMessageReader } from './error-response.ts';

export interface CallTimeouts {
  /** From sending the request to the first output (first token, first audio), in ms. */
  firstOutputMs: number;
  /** Longest wait for the next body chunk once output flows, in ms (time the reader spends is not counted). */
  stallMs: number;
  /** The whole call, headers to last byte, in ms of wall-clock time. */
  totalMs: number;
}

export class VendorCall {
  readonly #provider: string;
  readonly #caller: AbortSignal;
  readonly #timeouts: CallTimeouts;
  readonly #controller = new AbortController();
  readonly #onCallerAbort = (): void => this.#controller.abort(this.#caller.reason);
  #phaseTimer: NodeJS.Timeout | undefined;
  #totalTimer: NodeJS.Timeout | undefined;
  #outputSeen = false;
  #timedOut: ProviderError | undefined;

  /**
   * Starts the clock: the first-output and total deadlines run from here.
   * @param provider the provider's name, for error messages
   * @param caller the caller's signal; aborting it cancels the call and ends it without an error
   */
  constructor(provider: string, caller: AbortSignal, timeouts: CallTimeouts) {
    this.#provider = provider;
    this.#caller = caller;
    this.#timeouts = timeouts;
    if (caller.aborted) this.#controller.abort(caller.reason);
    else caller.addEventListener('abort', this.#onCallerAbort, { once: true });
    this.#totalTimer = setTimeout(() => this.#expire(`did not finish within ${timeouts.totalMs} ms`), timeouts.totalMs);
    this.#phaseTimer = setTimeout(
      () => this.#expire(`gave no output within ${timeouts.firstOutputMs} ms`),
      timeouts.firstOutputMs,
    );
  }

  /** The signal to hand to fetch. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True once the caller aborted: the consumer wants nothing more, not even an error. */
  get callerAborted(): boolean {
    return this.#caller.aborted;
  }

  /**
   * Sends the request. Resolves with the 2xx response, or undefined when the caller aborted first; rejects with
   * a ProviderError for a non-2xx answer (code from the status), a deadline, or a connection failure.
   */
  async send(url: string, init: RequestInit, readMessage: ErrorMessageReader): Promise<Response | undefined> {
    let response: Response;
    try {
      response = await fetch(url, { ...init, signal: this.#controller.signal });
    } catch (err) {
      return this.#rethrow(err, 'request failed');
    }
    if (!response.ok) throw await errorFromResponse(this.#provider, response, readMessage);
    return response;
  }

  /**
   * The response body as it arrives. Ends quietly when the caller aborts; rejects with a ProviderError when a
   * deadline passes or the connection breaks. Leaving the loop early cancels the request.
   */
  async *chunks(response: Response): AsyncGenerator<Uint8Array, void, undefined> {
    if (response.body === null) return;
    const reader = response.body.getReader();
    try {
      for (;;) {
        // The stall clock runs only while we wait on the network: a reader that takes its time with a chunk
        // (playing audio at its pace, say) is not a stalled upstream.
        if (this.#outputSeen) this.#arm(this.#timeouts.stallMs, 'stalled');
        let result: Awaited<ReturnType<typeof reader.read>>;
        try {
          result = await reader.read();
        } catch (err) {
          this.#rethrow(err, 'connection broke off mid-response');
          return;
        }
        if (this.#outputSeen) clearTimeout(this.#phaseTimer);
        if (result.done) return;
        yield result.value;
      }
    } finally {
      this.dispose();
    }
  }

  /** Output reached the consumer: the first-output deadline is met, and from now on only stalls count. */
  output(): void {
    if (this.#outputSeen) return;
    this.#outputSeen = true;
    clearTimeout(this.#phaseTimer);
  }

  /** Stops the clock and cancels the request if it is still going. Idempotent. */
  dispose(): void {
    clearTimeout(this.#phaseTimer);
    clearTimeout(this.#totalTimer);
    this.#caller.removeEventListener('abort', this.#onCallerAbort);
    if (!this.#controller.signal.aborted) this.#controller.abort();
  }

  /** A ProviderError for what fetch or the body reader threw, or undefined (end quietly) if the caller aborted. */
  failure(err: unknown, what: string): ProviderError | undefined {
    if (this.#caller.aborted) return undefined;
    if (this.#timedOut !== undefined) return this.#timedOut;
    if (err instanceof ProviderError) return err;
    return new ProviderError('upstream_failed', this.#provider, what, { cause: err });
  }

  #rethrow(err: unknown, what: string): undefined {
    const failure = this.failure(err, what);
    if (failure !== undefined) throw failure;
    return undefined;
  }

  #arm(ms: number, what: string): void {
    clearTimeout(this.#phaseTimer);
    this.#phaseTimer = setTimeout(() => this.#expire(`${what}: no data for ${ms} ms`), ms);
  }

  #expire(what: string): void {
    if (this.#controller.signal.aborted) return;
    this.#timedOut = new ProviderError('upstream_timeout', this.#provider, what);
    this.#controller.abort(this.#timedOut);
  }
}
