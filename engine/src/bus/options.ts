/**
 * Checks of caller-supplied options, shared by both buses so a mistake fails the same way in either mode.
 * These are programming errors, not bus conditions, so they throw RangeError rather than a BusError.
 */
import type { SubscribeOptions } from './bus.ts';
import { assertQueueName } from './subject-match.ts';

/** Longest request timeout, in milliseconds: Node timers overflow above 2^31 − 1 ms and would fire at once. */
export const MAX_REQUEST_TIMEOUT_MS = 2_147_483_647;

/** Throws unless `timeoutMs` is a positive number of milliseconds a timer can hold. */
export function assertRequestTimeout(timeoutMs: number): void {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > MAX_REQUEST_TIMEOUT_MS) {
    throw new RangeError(`timeoutMs must be in (0, ${MAX_REQUEST_TIMEOUT_MS}] ms, got ${timeoutMs}`);
  }
}

/** Throws unless the queue name is valid and `max` is a positive integer. */
export function assertSubscribeOptions(options: SubscribeOptions): void {
  if (options.queue !== undefined) assertQueueName(options.queue);
  if (options.max !== undefined && (!Number.isSafeInteger(options.max) || options.max < 1)) {
    throw new RangeError(`max must be a positive integer, got ${options.max}`);
  }
}
