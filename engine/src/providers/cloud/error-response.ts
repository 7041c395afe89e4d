/**
 * A cloud vendor's refusal as a ProviderError: the code from the HTTP status (of an answer, or of a refused
 * websocket handshake), the wait from Retry-After, and the vendor's error body for the log message only.
 */
import { ProviderError, type ProviderErrorCode } from '../provider-error.ts';

/**
 * Error bodies are read for the log message only; a proxy's HTML error page can be large and tells us nothing
 * more after its first few kilobytes.
 */
export const ERROR_BODY_LIMIT_BYTES = 8 * 1024;

/** The code an HTTP status (or websocket handshake status) means. */
export function codeForStatus(status: number): ProviderErrorCode {
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 429) return 'rate_limited';
  if (status === 408 || status === 504) return 'upstream_timeout';
  if (status >= 500) return 'upstream_failed';
  if (status >= 400) return 'invalid_request';
  return 'bad_response';
}

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
