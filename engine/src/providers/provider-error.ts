/**
 * The providers' one registry of error codes (DESIGN.md §7.4), for the cloud vendors (OpenAI-compatible, Deepgram,
 * ElevenLabs) and the local programs (flite, espeak-ng, pocketsphinx) alike. Every provider failure surfaces as a
 * ProviderError carrying one of these codes, chosen from an HTTP status, a websocket close code, a program's exit,
 * or what our own clock saw — never from a vendor's or program's message text, which only goes into `message` for
 * the logs. Workers put `code` and `retryable` on the wire as they are (workers/provider-registry.ts `wireError`),
 * and fallback adapters and callers branch on them.
 */
export const PROVIDER_ERROR_CODES = {
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
} as const satisfies Record<string, { retryable: boolean }>;

export type ProviderErrorCode = keyof typeof PROVIDER_ERROR_CODES;

export interface ProviderErrorOptions {
  /** The HTTP status the vendor answered with, when there was one. */
  status?: number;
  /** For rate_limited: how long the vendor asked us to wait (Retry-After), in ms. */
  retryAfterMs?: number;
  cause?: unknown;
}

export class ProviderError extends Error {
  override name = 'ProviderError';
  readonly code: ProviderErrorCode;
  readonly retryable: boolean;
  /** Which provider failed, as in its `name` (for example `api.openai.com/gpt-4o-mini`, `deepgram`, `flite`). */
  readonly provider: string;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(code: ProviderErrorCode, provider: string, message: string, options: ProviderErrorOptions = {}) {
    super(`${provider}: ${message}`, { cause: options.cause });
    this.code = code;
    this.retryable = PROVIDER_ERROR_CODES[code].retryable;
    this.provider = provider;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** True when `err` is a ProviderError, optionally with the given code. */
export function isProviderError(err: unknown, code?: ProviderErrorCode): err is ProviderError {
  return err instanceof ProviderError && (code === undefined || err.code === code);
}
