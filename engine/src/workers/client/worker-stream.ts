/**
 * The session's end of a worker stream: opens it on the kind's queue group, watches the serving worker's
 * heartbeats, pings when quiet, and when the worker dies (or the open fails for a retryable reason) opens a new
 * stream on another worker and tells its owner, which replays what the lost stream was in the middle of.
 */
import type { Bus, Subscription } from '../../bus/index.ts';
import { BusError } from '../../bus/index.ts';
import {
  codecs,
  subjects,
  STREAM_PING_INTERVAL_MS,
  WORKER_DEAD_AFTER_MS,
  type OpenRequest,
  type WorkerKind,
} from '../../protocol/index.ts';
import { everyShared } from '../../streams/shared-interval.ts';
import { ERROR_CODES, knownErrorCode, type ErrorCode } from '../../protocol/error-codes.ts';
import { kindSubjects } from '../worker-host.ts';

/** How long one open request waits for a worker's answer, in ms. */
export const OPEN_TIMEOUT_MS = 2_000;
/** How long a session keeps trying to find a worker before giving up, in ms: a call cannot wait longer. */
export const OPEN_DEADLINE_MS = 8_000;
/** Pause between open attempts while no worker answers, in ms. */
const OPEN_RETRY_DELAY_MS = 200;
/** How often the heartbeat watch looks at the clock, in ms. */
const LIVENESS_CHECK_INTERVAL_MS = 500;

/** Whether a heartbeat says its worker is stopping; an unreadable one says nothing. */
function isDraining(data: Uint8Array): boolean {
  try {
    return codecs.heartbeat.decode(data).draining === true;
  } catch {
    return false;
  }
}

export class WorkerStreamError extends Error {
  override name = 'WorkerStreamError';
  readonly code: ErrorCode;
  readonly retryable: boolean;
  /** @param options.retryable as a worker said on the wire; the registry's value for the code otherwise */
  constructor(code: ErrorCode, message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable ?? ERROR_CODES[code].retryable;
  }

  /** A failure a worker reported on the wire. */
  static fromWire(failure: { code: string; message: string; retryable: boolean }): WorkerStreamError {
    return new WorkerStreamError(knownErrorCode(failure.code), failure.message, { retryable: failure.retryable });
  }
}

export interface WorkerStreamEvents {
  /** A message on the stream's `.out` subject. */
  message(payload: Uint8Array): void;
  /** The worker died and a new stream is open on another one: resend whatever was in flight. */
  reopened(): void;
  /** No worker could be reached before the deadline; the stream is closed. */
  failed(error: WorkerStreamError): void;
}

export class WorkerStream {
  readonly #bus: Bus;
  readonly #kind: WorkerKind;
  readonly #request: OpenRequest;
  readonly #events: WorkerStreamEvents;
  #streamId: string | undefined;
  #workerId: string | undefined;
  #output: Subscription | undefined;
  #heartbeats: Subscription | undefined;
  #lastHeartbeatAt = 0;
  #lastSentAt = 0;
  #stopWatching: (() => void) | undefined;
  #closed = false;
  #reopening = false;
  /** Worker failovers so far, for the latency report and logs. */
  failovers = 0;

  constructor(bus: Bus, kind: WorkerKind, request: OpenRequest, events: WorkerStreamEvents) {
    this.#bus = bus;
    this.#kind = kind;
    this.#request = request;
    this.#events = events;
  }

  get workerId(): string | undefined {
    return this.#workerId;
  }

  /** Opens the stream; rejects with WorkerStreamError when no worker takes it before the deadline. */
  async open(): Promise<void> {
    await this.#connect();
    this.#stopWatching = everyShared(LIVENESS_CHECK_INTERVAL_MS, () => this.#watch());
  }

  /** Whether `send` goes out now: false while a failover is reopening the stream (and once it is closed). */
  get accepting(): boolean {
    return !this.#closed && this.#streamId !== undefined && !this.#reopening;
  }

  /** Sends on the stream's `.in` subject; dropped while a failover is reopening (the owner replays after). */
  send(payload: Uint8Array | string): void {
    if (this.#closed || !this.#streamId || this.#reopening) return;
    this.#lastSentAt = Date.now();
    this.#bus.publish(kindSubjects(this.#kind, this.#streamId).in, payload);
  }

  /** Tells the worker the stream is over, and stops listening. Idempotent. */
  close(finalMessage?: string): void {
    if (this.#closed) return;
    if (finalMessage) this.send(finalMessage);
    this.#closed = true;
    this.#stopWatching?.();
    this.#output?.unsubscribe();
    this.#heartbeats?.unsubscribe();
  }

  async #connect(): Promise<void> {
    const deadline = Date.now() + OPEN_DEADLINE_MS;
    let lastError: unknown;
    while (!this.#closed && Date.now() < deadline) {
      try {
        const reply = codecs.openReply.decode(
          (
            await this.#bus.request(subjects.workerOpen(this.#kind), codecs.openRequest.encode(this.#request), {
              timeoutMs: OPEN_TIMEOUT_MS,
            })
          ).data,
        );
        if (!reply.ok) throw WorkerStreamError.fromWire(reply);
        this.#attach(reply.streamId, reply.workerId);
        return;
      } catch (error) {
        lastError = error;
        if (error instanceof WorkerStreamError && !error.retryable) throw error;
        if (error instanceof BusError && !error.retryable && error.code !== 'no_responders') throw error;
        await new Promise((resolve) => setTimeout(resolve, OPEN_RETRY_DELAY_MS));
      }
    }
    throw new WorkerStreamError('no_worker', `no ${this.#kind} worker answered within ${OPEN_DEADLINE_MS} ms`, {
      cause: lastError,
    });
  }

  #attach(streamId: string, workerId: string): void {
    this.#output?.unsubscribe();
    this.#heartbeats?.unsubscribe();
    this.#streamId = streamId;
    this.#workerId = workerId;
    this.#lastHeartbeatAt = Date.now();
    this.#lastSentAt = Date.now();
    const output = this.#bus.subscribe(kindSubjects(this.#kind, streamId).out);
    const heartbeats = this.#bus.subscribe(subjects.workerHeartbeat(this.#kind, workerId));
    this.#output = output;
    this.#heartbeats = heartbeats;
    void (async () => {
      for await (const message of output) this.#events.message(message.data);
    })();
    void (async () => {
      for await (const beat of heartbeats) {
        this.#lastHeartbeatAt = Date.now();
        if (isDraining(beat.data)) void this.#handBack();
      }
    })();
  }

  /**
   * The worker is stopping (docs/architecture.md §18): the stream moves to another worker now, the way it does
   * when a worker dies, and the old one is told it is over so the stopping worker need not wait for its idle timeout.
   * What the old stream was in the middle of is replayed to the new one by the owner (`reopened`).
   */
  async #handBack(): Promise<void> {
    if (this.#closed || this.#reopening || this.#streamId === undefined) return;
    const old = kindSubjects(this.#kind, this.#streamId).in;
    // Deaf to the old stream first: its `ended` must not end the owner's stream.
    this.#output?.unsubscribe();
    this.#heartbeats?.unsubscribe();
    this.#bus.publish(old, JSON.stringify({ type: 'end' }));
    await this.#reopen();
  }

  #watch(): void {
    if (this.#closed || this.#reopening) return;
    const now = Date.now();
    if (now - this.#lastHeartbeatAt > WORKER_DEAD_AFTER_MS) {
      void this.#reopen();
      return;
    }
    if (now - this.#lastSentAt > STREAM_PING_INTERVAL_MS) this.send(JSON.stringify({ type: 'ping' }));
  }

  async #reopen(): Promise<void> {
    this.#reopening = true;
    this.failovers += 1;
    try {
      await this.#connect();
      this.#reopening = false;
      if (!this.#closed) this.#events.reopened();
    } catch (error) {
      this.#reopening = false;
      this.close();
      this.#events.failed(
        error instanceof WorkerStreamError
          ? error
          : new WorkerStreamError('no_worker', String(error), { cause: error }),
      );
    }
  }
}
