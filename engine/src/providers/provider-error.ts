import { ERROR_CODES } from '../protocol/error-codes.ts';

/**
 * The providers' error codes (their meanings and `retryable` are in the engine's one registry,
 * protocol/error-codes.ts), for the cloud vendors (OpenAI-compatible, Deepgram, ElevenLabs) and the local programs (flite, espeak-ng, pocketsphinx) alike. Every provider failure surfaces as a
 * ProviderError carrying one of these codes, chosen from an HTTP status, a websocket close code, a program's exit,
 * or what our own clock saw — never from a vendor's or program's message text, which only goes into `message` for
 * the logs. Workers put `code` and `retryable` on the wire as they are (workers/provider-registry.ts `wireError`),
 * and fallback adapters and callers branch on them.
 */
const PROVIDER_CODES = [
  'upstream_failed',
  'upstream_timeout',
  'rate_limited',
  'unauthorized',
  'invalid_request',
  'bad_response',
  'provider_unavailable',
  'provider_failed',
] as const;
export type ProviderErrorCode = (typeof PROVIDER_CODES)[number];
export const PROVIDER_ERROR_CODES: Readonly<Record<ProviderErrorCode, { retryable: boolean }>> = Object.fromEntries(
  PROVIDER_CODES.map((code) => [code, ERROR_CODES[code]]),
) as Record<ProviderErrorCode, { retryable: boolean }>;

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
    this.retryable = ERROR_CODES[code].retryable;
    this.provider = provider;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** True when `err` is a ProviderError, optionally with the given code. */
export function isProviderError(err: unknown, code?: ProviderErrorCode): err is ProviderError {
  return err instanceof ProviderError && (code === undefined || err.code === code);
}
