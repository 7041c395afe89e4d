/**
 * The bus's one registry of error codes (DESIGN.md §7.4). Both implementations reject with a BusError carrying one
 * of these codes, so callers branch on `code` and `retryable` and never on message text or on the NATS client's
 * own error classes.
 */
export const BUS_ERROR_CODES = {
  /** Nobody subscribes to the request subject (no worker of that kind is up yet): worth retrying later. */
  no_responders: { retryable: true },
  /** No answer came in time: the responder may be busy, so a retry can succeed. */
  timeout: { retryable: true },
  /** The bus is closed or draining: nothing more can be sent on it. */
  closed: { retryable: false },
  /** The subject (or queue name) breaks NATS subject rules. */
  bad_subject: { retryable: false },
  /** The payload is bigger than the server (or the in-process bus) accepts in one message. */
  payload_too_large: { retryable: false },
  /** The connection to the NATS server dropped mid-operation; the client reconnects on its own. */
  disconnected: { retryable: true },
  /** The NATS server refused the subject to this client (account permissions). */
  permission_denied: { retryable: false },
  /** The NATS client failed in a way this registry does not know; `cause` holds the original error. */
  internal: { retryable: false },
} as const satisfies Record<string, { retryable: boolean }>;

export type BusErrorCode = keyof typeof BUS_ERROR_CODES;

export class BusError extends Error {
  override name = 'BusError';
  readonly code: BusErrorCode;
  readonly retryable: boolean;

  constructor(code: BusErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.retryable = BUS_ERROR_CODES[code].retryable;
  }
}

/** True when `err` is a BusError, optionally with the given code. */
export function isBusError(err: unknown, code?: BusErrorCode): err is BusError {
  return err instanceof BusError && (code === undefined || err.code === code);
}
