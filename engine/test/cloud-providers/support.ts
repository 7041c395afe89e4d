/**
 * What the cloud-provider tests share: reading a stream to its end (or its error) with a deadline, so a provider
 * that hangs fails the test with a message instead of the suite's timeout.
 */
import { expect } from 'vitest';
import { isProviderError, type ProviderErrorCode } from '../../src/providers/provider-error.ts';

/** Longest a test waits for what should take milliseconds. */
export const TEST_WAIT_MS = 5_000;

/** `promise`, or a rejection naming `what` after `ms`. */
export function within<T>(promise: Promise<T>, what: string, ms = TEST_WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Every item of `stream` until it ends. */
export function collect<T>(stream: AsyncIterable<T>, what = 'the stream to end'): Promise<T[]> {
  return within(
    (async () => {
      const items: T[] = [];
      for await (const item of stream) items.push(item);
      return items;
    })(),
    what,
  );
}

/** Reads `stream` expecting it to fail: the items before the failure and the error. */
export async function collectFailure<T>(stream: AsyncIterable<T>): Promise<{ items: T[]; error: unknown }> {
  const items: T[] = [];
  try {
    await within(
      (async () => {
        for await (const item of stream) items.push(item);
      })(),
      'the stream to fail',
    );
  } catch (error) {
    return { items, error };
  }
  throw new Error(`expected the stream to fail, but it ended after ${items.length} items`);
}

/** Asserts `error` is a ProviderError with this code (and status, when given). */
export function expectProviderError(error: unknown, code: ProviderErrorCode, status?: number): void {
  expect(isProviderError(error), `expected a ProviderError, got ${String(error)}`).toBe(true);
  if (!isProviderError(error)) return;
  expect(error.code, error.message).toBe(code);
  if (status !== undefined) expect(error.status).toBe(status);
}
