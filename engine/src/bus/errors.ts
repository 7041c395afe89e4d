/**
 * The bus's errors. Both implementations reject with a BusError carrying one of the codes below (from the engine's
 * one registry), so callers branch on `code` and `retryable` and never on message text or on the NATS client's own
 * error classes.
 */
import { ERROR_CODES } from '../protocol/error-codes.ts';

/** The codes the bus raises (their meanings and `retryable` are in the engine's registry, protocol/error-codes.ts). */
const BUS_CODES = [
  'no_responders',
  'timeout',
  'closed',
  'bad_subject',
  'payload_too_large',
  'disconnected',
  'permission_denied',
  'internal',
] as const;
export type BusErrorCode = (typeof BUS_CODES)[number];
export const BUS_ERROR_CODES: Readonly<Record<BusErrorCode, { retryable: boolean }>> = Object.fromEntries(
  BUS_CODES.map((code) => [code, ERROR_CODES[code]]),
) as Record<BusErrorCode, { retryable: boolean }>;

export class BusError extends Error {
  override name = 'BusError';
  readonly code: BusErrorCode;
  readonly retryable: boolean;

  constructor(code: BusErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.retryable = ERROR_CODES[code].retryable;
  }
}

/** True when `err` is a BusError, optionally with the given code. */
export function isBusError(err: unknown, code?: BusErrorCode): err is BusError {
  return err instanceof BusError && (code === undefined || err.code === code);
}
