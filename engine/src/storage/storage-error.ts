/**
 * The object stores' one error class. Its codes come from the engine's registry (protocol/error-codes.ts), so
 * callers branch on `code` and `retryable` — an upload is retried only when `retryable` — never on message text.
 */
import { ERROR_CODES } from '../protocol/error-codes.ts';

/** The codes object stores raise; meanings and `retryable` are in the engine's registry. */
const STORAGE_CODES = [
  'unauthorized',
  'invalid_request',
  'rate_limited',
  'upstream_failed',
  'upstream_timeout',
  'bad_response',
  'internal',
] as const;
export type StorageErrorCode = (typeof STORAGE_CODES)[number];
export const STORAGE_ERROR_CODES: Readonly<Record<StorageErrorCode, { retryable: boolean }>> = Object.fromEntries(
  STORAGE_CODES.map((code) => [code, ERROR_CODES[code]]),
) as Record<StorageErrorCode, { retryable: boolean }>;

export class ObjectStoreError extends Error {
  override name = 'ObjectStoreError';
  readonly code: StorageErrorCode;
  readonly retryable: boolean;
  /** The HTTP status a bucket answered, when it answered. */
  readonly status: number | undefined;
  /** The bucket's own error code (`NoSuchBucket`, `SignatureDoesNotMatch`, …), when it sent one. */
  readonly s3Code: string | undefined;

  constructor(
    code: StorageErrorCode,
    message: string,
    options: { cause?: unknown; status?: number; s3Code?: string } = {},
  ) {
    super(message, { cause: options.cause });
    this.code = code;
    this.retryable = ERROR_CODES[code].retryable;
    this.status = options.status;
    this.s3Code = options.s3Code;
  }
}
