/**
 * The engine's one registry of error codes (docs/architecture.md §7.4). Every error the engine raises or puts on the wire
 * carries one of these codes and its `retryable`; callers branch on them, never on message text. The codes are
 * grouped by where they arise; the error classes of each part (BusError, ProviderError, WorkerStreamError, the
 * audio outputs' errors) take theirs from here.
 */
export const ERROR_CODES = {
  // ---- the bus ----
  /** Nobody subscribes to the request subject (no worker of that kind is up yet): worth retrying later. */
  no_responders: { retryable: true },
  /** No answer came in time: the responder may be busy, so a retry can succeed. */
  timeout: { retryable: true },
  /** The bus, a stream or an output is closed or draining: nothing more can be sent on it. */
  closed: { retryable: false },
  /** The subject (or queue name) breaks NATS subject rules. */
  bad_subject: { retryable: false },
  /** The payload is bigger than the server (or the in-process bus) accepts in one message. */
  payload_too_large: { retryable: false },
  /** The connection to the NATS server dropped mid-operation; the client reconnects on its own. */
  disconnected: { retryable: true },
  /** The NATS server refused the subject to this client (account permissions). */
  permission_denied: { retryable: false },
  /** A failure this registry does not know (a library's own error, a code from a newer peer); `cause` holds it. */
  internal: { retryable: false },

  // ---- speech and language providers ----
  /** A vendor answered 5xx, dropped the connection, or broke off a stream midway: another try may work. */
  upstream_failed: { retryable: true },
  /** No first output, a stall, or the whole call or program run past its limit (our clock, or a vendor's 408/504). */
  upstream_timeout: { retryable: true },
  /** 429: the account's rate or concurrency limit; `retryAfterMs` says when, if the vendor said. */
  rate_limited: { retryable: true },
  /** 401/403: the key is missing, wrong, or lacks permission. Retrying with the same key cannot help. */
  unauthorized: { retryable: false },
  /** Refused as asked, by our own checks or a vendor's other 4xx: unknown voice or model, language, text too long. */
  invalid_request: { retryable: false },
  /** A vendor answered 2xx with something that does not follow its documented format. */
  bad_response: { retryable: false },
  /** The provider cannot run here (program or model files not installed, or not configured): an operator must act. */
  provider_unavailable: { retryable: false },
  /** A local program exited with an error or wrote output we cannot read; the same input would fail the same way. */
  provider_failed: { retryable: false },

  // ---- worker streams, dispatch and calls ----
  /** A stream asked for a provider the worker does not serve (configuration differs between workers). */
  unknown_provider: { retryable: false },
  /** A worker could not open a stream for a reason of its own (see the message). */
  open_failed: { retryable: false },
  /** No worker of the kind answered an open before the deadline. */
  no_worker: { retryable: true },
  /** The worker serving a stream died after output had flowed: the request cannot be replayed unseen. */
  worker_lost: { retryable: true },
  /** A message that does not follow the wire schema. */
  bad_message: { retryable: false },
  /** A media connection presented an unknown or expired stream token. */
  bad_stream_token: { retryable: false },
  /** The engine could not accept a dispatched call (its worker streams did not open). */
  engine_failed: { retryable: true },
  /** The engine is draining (SIGTERM) and takes no new call: another engine can (docs/architecture.md §18). */
  engine_draining: { retryable: true },

  // ---- audio outputs ----
  /** Audio was queued on an output that is closed. */
  output_closed: { retryable: false },
  /** A transport's byte sink fell too far behind: the far end is not reading. */
  sink_overflow: { retryable: false },
} as const satisfies Record<string, { retryable: boolean }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_CODES, code);
}

/** A code read off the wire: a peer of a newer version may send one this registry does not know yet. */
export function knownErrorCode(code: string): ErrorCode {
  return isErrorCode(code) ? code : 'internal';
}
