/**
 * The cloud providers' one registry of error codes (DESIGN.md §7.4). Every failure of an OpenAI-compatible,
 * Deepgram or ElevenLabs call surfaces as a ProviderError carrying one of these codes, chosen from the HTTP status,
 * the websocket close code or what our own clock saw — never from the vendor's message text, which only goes into
 * `message` for the logs. Workers and fallback adapters branch on `code` and `retryable`.
 *
 * It lives in openai-compat/ because that family is the generic HTTP client the other vendors share; it is not
 * OpenAI-specific and can move to providers/ as is.
 */
export const PROVIDER_ERROR_CODES = {
  /** The vendor answered 5xx, dropped the connection, or broke off a stream midway: another try may work. */
  upstream_failed: { retryable: true },
  /** No first output, a stall, or the whole call ran past its limit (our clock, or the vendor's 408/504). */
  upstream_timeout: { retryable: true },
  /** 429: the account's rate or concurrency limit; `retryAfterMs` says when, if the vendor said. */
  rate_limited: { retryable: true },
  /** 401/403: the key is missing, wrong, or lacks permission. Retrying with the same key cannot help. */
  unauthorized: { retryable: false },
  /** Any other 4xx: the vendor refused this request as it is (unknown model or voice, input too long). */
  rejected: { retryable: false },
  /** The vendor answered 2xx with something that does not follow its documented format. */
  bad_response: { retryable: false },
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
  /** Which provider failed, as in its `name` (for example `api.openai.com/gpt-4o-mini`, `deepgram`). */
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

/** The code an HTTP status (or websocket handshake status) means. */
export function codeForStatus(status: number): ProviderErrorCode {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 429) return 'rate_limited';
  if (status === 408 || status === 504) return 'upstream_timeout';
  if (status >= 500) return 'upstream_failed';
  if (status >= 400) return 'rejected';
  return 'bad_response';
}

/**
 * Error bodies are read for the log message only; a proxy's HTML error page can be large and tells us nothing
 * more after its first few kilobytes.
 */
export const ERROR_BODY_LIMIT_BYTES = 8 * 1024;

/** Reads a vendor's JSON error body into a human message; undefined when the body is not that vendor's shape. */
export type ErrorMessageReader = (body: unknown) => string | undefined;

/**
 * The ProviderError for a non-2xx answer: the code from the status, the message from the vendor's error body.
 * @param provider the provider's name, for the message
 * @param response a non-2xx response; its body is consumed (at most ERROR_BODY_LIMIT_BYTES)
 * @param readMessage the vendor's error body shape
 */
export async function errorFromResponse(
  provider: string,
  response: Response,
  readMessage: ErrorMessageReader,
): Promise<ProviderError> {
  const text = await readLimitedText(response).catch(() => '');
  let detail: string | undefined;
  try {
    detail = readMessage(JSON.parse(text));
  } catch {
    detail = undefined;
  }
  const message = `HTTP ${response.status}${detail === undefined ? '' : `: ${detail}`}`;
  return new ProviderError(codeForStatus(response.status), provider, message, {
    status: response.status,
    retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
  });
}

/**
 * Retry-After as ms: delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable.
 * @param now the current time in ms since the epoch, for HTTP dates
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

async function readLimitedText(response: Response): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  while (size < ERROR_BODY_LIMIT_BYTES) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    size += value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
  return new TextDecoder().decode(Buffer.concat(parts).subarray(0, ERROR_BODY_LIMIT_BYTES));
}
