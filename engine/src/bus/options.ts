/**
 * Checks of caller-supplied options, shared by both buses so a mistake fails the same way in either mode.
 * These are programming errors, not bus conditions, so they throw RangeError rather than a BusError.
 */
import type { ConsumeOptions, StreamSpec, SubscribeOptions } from './bus.ts';
import { assertQueueName, assertSubscribeSubject, subjectWithin } from './subject-match.ts';

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

/** What a durable consumer is given when its options leave something out (the values NATS itself defaults to). */
export const DURABLE_DEFAULTS = {
  /** ms: NATS's default ack wait; a handler that has not answered in 30 s is stuck or gone. */
  ackWaitMs: 30_000,
  /** Messages per pull: the NATS client's default, enough to keep a consumer busy between pulls. */
  batch: 100,
  /** NATS's default: a thousand unanswered messages across the durable's consumers before delivery pauses. */
  maxAckPending: 1_000,
} as const;

/** A durable consumer's options, checked and with every default filled in. */
export interface ResolvedConsumeOptions {
  readonly stream: StreamSpec;
  readonly durable: string;
  /** The ack wait of each delivery in turn, ms, the last repeating; never empty. */
  readonly ackWaitMs: readonly number[];
  /** Deliveries per message at most; -1 for no limit (NATS's own notation). */
  readonly maxDeliver: number;
  readonly batch: number;
  readonly maxAckPending: number;
}

/** Stream and consumer names NATS accepts everywhere (no dots, wildcards, slashes or whitespace). */
const DURABLE_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * Checks a durable consumer's subject and options and fills in the defaults, so both buses refuse the same mistakes.
 * A bad subject is a `bad_subject` BusError, as for `subscribe`; anything else is a RangeError.
 */
export function resolveConsumeOptions(subject: string, options: ConsumeOptions): ResolvedConsumeOptions {
  const { stream, durable } = options;
  assertSubscribeSubject(subject);
  assertDurableName('stream name', stream.name);
  assertDurableName('durable name', durable);
  if (stream.subjects.length === 0) throw new RangeError(`stream ${stream.name} must capture at least one subject`);
  for (const streamSubject of stream.subjects) assertSubscribeSubject(streamSubject);
  if (!stream.subjects.some((streamSubject) => subjectWithin(subject, streamSubject))) {
    throw new RangeError(
      `${subject} is not within the subjects of stream ${stream.name} (${stream.subjects.join(', ')})`,
    );
  }
  assertPositive('stream maxAgeMs', stream.maxAgeMs);
  const ackWaitMs =
    typeof options.ackWaitMs === 'number'
      ? [options.ackWaitMs]
      : [...(options.ackWaitMs ?? [DURABLE_DEFAULTS.ackWaitMs])];
  if (ackWaitMs.length === 0) throw new RangeError('ackWaitMs must not be an empty list');
  for (const wait of ackWaitMs) assertPositive('ackWaitMs', wait);
  const maxDeliver = options.maxDeliver ?? -1;
  if (maxDeliver !== -1) {
    assertPositiveInteger('maxDeliver', maxDeliver);
    // NATS refuses a backoff with as many entries as deliveries: the last wait would never be used.
    if (ackWaitMs.length > 1 && maxDeliver <= ackWaitMs.length) {
      throw new RangeError(`maxDeliver (${maxDeliver}) must exceed the ${ackWaitMs.length} ackWaitMs entries`);
    }
  }
  const batch = options.batch ?? DURABLE_DEFAULTS.batch;
  const maxAckPending = options.maxAckPending ?? DURABLE_DEFAULTS.maxAckPending;
  assertPositiveInteger('batch', batch);
  assertPositiveInteger('maxAckPending', maxAckPending);
  return { stream, durable, ackWaitMs, maxDeliver, batch, maxAckPending };
}

/**
 * A nak's delay in whole ms, or undefined for "at once". `nak` never throws (it is called on error paths), so a delay
 * that is not a positive finite number means at once rather than an exception.
 */
export function nakDelayMs(delayMs: number | undefined): number | undefined {
  return delayMs !== undefined && Number.isFinite(delayMs) && delayMs >= 1 ? Math.round(delayMs) : undefined;
}

function assertDurableName(what: string, name: string): void {
  if (!DURABLE_NAME.test(name))
    throw new RangeError(`${what} ${JSON.stringify(name)} may hold only letters, digits, - and _`);
}

function assertPositive(what: string, value: number): void {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${what} must be a positive number, got ${value}`);
}

function assertPositiveInteger(what: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new RangeError(`${what} must be a positive integer, got ${value}`);
}
