/**
 * What bus tests share: waits that fail with a message instead of hanging, readers of subscriptions, and
 * expectations on BusError. Used by the contract suite and the implementation-specific suites.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { BusError, type Bus, type BusMessage, type Subscription } from '../../src/bus/index.ts';

/** Longest a test waits, in ms, for what should take milliseconds: a hang then fails with a clear message. */
export const TEST_WAIT_MS = 5_000;
/** A request timeout short enough to keep the suite fast, long enough to be beyond scheduling noise. */
export const SHORT_TIMEOUT_MS = 150;

/** A subject prefix no other test (or concurrent run against the same server) uses. */
export function uniquePrefix(): string {
  return `test.${randomBytes(6).toString('hex')}`;
}

/** `promise`, or a rejection naming `what` after `ms` milliseconds. */
export function within<T>(promise: Promise<T>, what: string, ms = TEST_WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Reads until the subscription ends. */
export function readAll(sub: Subscription): Promise<BusMessage[]> {
  return within(
    (async () => {
      const messages: BusMessage[] = [];
      for await (const message of sub) messages.push(message);
      return messages;
    })(),
    `the end of ${sub.subject}`,
  );
}

/** Reads `count` messages, then stops (which unsubscribes). */
export function take(sub: Subscription, count: number): Promise<BusMessage[]> {
  return within(
    (async () => {
      const messages: BusMessage[] = [];
      if (count === 0) return messages;
      for await (const message of sub) {
        messages.push(message);
        if (messages.length === count) break;
      }
      return messages;
    })(),
    `${count} messages on ${sub.subject}`,
  );
}

/** Answers every request on the subscription with what `answer` returns, until the subscription ends. */
export function serve(sub: Subscription, answer: (message: BusMessage) => string | Uint8Array): void {
  void (async () => {
    for await (const message of sub) message.respond(answer(message));
  })();
}

/** Awaits the rejection of `promise` and checks it is a BusError. */
export async function rejection(promise: Promise<unknown>): Promise<BusError> {
  const err = await within(
    promise.then(
      () => undefined,
      (e: unknown) => e,
    ),
    'a rejection',
  );
  expect(err).toBeInstanceOf(BusError);
  return err as BusError;
}

/** Runs `fn` and returns the BusError it throws. */
export function thrown(fn: () => unknown): BusError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(BusError);
    return err as BusError;
  }
  throw new Error('expected a BusError to be thrown');
}

/** Collects what each subscription got, after everything published so far has been delivered. */
export async function drainAndRead(bus: Bus, subs: Subscription[]): Promise<BusMessage[][]> {
  await bus.flush();
  return Promise.all(
    subs.map(async (sub) => {
      const all = readAll(sub);
      await sub.drain();
      return all;
    }),
  );
}
