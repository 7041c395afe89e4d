/**
 * The control plane's ear on the engines (docs/architecture.md §3 step 6): every call's events (`v1.call.*.event`) are taken
 * through the bus's durable consumer and written to Postgres by call-event-store.ts, idempotently (an event seen
 * before changes nothing).
 *
 * With NATS, the events are kept in a JetStream stream and taken by one durable consumer that every control-plane
 * instance shares: each event goes to one instance, is acknowledged only once it is written (applied, a duplicate,
 * or for no known call), and is delivered again when the database failed (after a growing delay), when the
 * instance died with it unanswered, or when no instance was running as it was published (restart, deploy, crash).
 * Engines keep a plain publish (why: engine/src/bus/nats-durable.ts). In-process (embedded mode) the same code runs
 * over a plain queue subscription: a failed write is retried within the process, and nothing outlives it.
 *
 * Within this process the events of one call are applied one after another, in the order they arrived; different
 * calls proceed side by side, at most MAX_EVENTS_IN_FLIGHT at once. Across instances, a call's row lock serialises,
 * and what the store does with an event never depends on the order it arrives in (statuses only move forward,
 * transcript lines carry their times).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  isBusError,
  type Bus,
  type ConsumeOptions,
  type DurableMessage,
  type DurableSubscription,
} from '@parley/engine/bus';
import { callCodecs, queues, subjects, type CallEvent } from '@parley/engine/protocol';
import type { Sql } from '../../db/database.ts';
import { isId } from '../../db/ids.ts';
import { persistCallEvent, type PersistOutcome } from '../repository/call-event-store.ts';

/** What became of an event: applied, a duplicate, for no known call, or not written (the database kept failing). */
export type PersistResult = PersistOutcome | 'failed';

/**
 * Events being written at once by this process. Beyond it the listener stops reading, and what the engines keep
 * publishing waits in the stream (with NATS) or in the subscription's buffer of 1,024 messages (in-process).
 */
const MAX_EVENTS_IN_FLIGHT = 256;
/** Tries of `persist()` (called directly, not from the bus) when the database fails. */
const WRITE_ATTEMPTS = 3;
/** Pause before the second try of `persist()`, ms; doubled before the third. */
const WRITE_RETRY_DELAY_MS = 250;

/** Where the engines' events are kept, and the durable consumer the control-plane instances share. */
const CALL_EVENTS_CONSUMER: ConsumeOptions = {
  stream: {
    name: 'PARLEY_CALL_EVENTS',
    subjects: [subjects.allCallEvents()],
    // A week: the longest a control plane can stay down (a long weekend) and still get every call's record right.
    maxAgeMs: 7 * 24 * 60 * 60 * 1000,
  },
  durable: queues.controlPlane,
  // An event no instance answered (it died holding it) comes back after 30 s; a stuck instance gets longer each time
  // before its events are taken again, so a sick database is not hit with every event at once.
  ackWaitMs: [30_000, 60_000, 300_000],
  // Eight hours of a database outage at one try a minute (NAK_MAX_DELAY_MS) before an event is given up on.
  maxDeliver: 480,
  // Half of what this process writes at once: the next pull arrives while the writes go on.
  batch: MAX_EVENTS_IN_FLIGHT / 2,
  // Room for a few dozen instances' in-flight writes and pulls; beyond it the server waits for acks.
  maxAckPending: 10_000,
};

/** Redelivery delay after the first failed write, ms; it doubles with each delivery up to NAK_MAX_DELAY_MS. */
const NAK_FIRST_DELAY_MS = 1_000;
/** Longest redelivery delay, ms: a minute between tries is soon enough once the database is back. */
const NAK_MAX_DELAY_MS = 60_000;
/** Pause before setting up the durable consumer again when it failed (the stream could not be made), ms. */
const CONSUME_RETRY_MS = 5_000;

export type PersisterLog = (level: 'info' | 'warn' | 'error', message: string, detail: object) => void;

export interface PersisterOptions {
  /** Told after an event was applied (not for duplicates): what must follow a call's events beyond the database. */
  onApplied?: (callId: string, event: CallEvent) => void;
}

export class CallEventPersister {
  readonly #sql: Sql;
  readonly #log: PersisterLog;
  readonly #onApplied: PersisterOptions['onApplied'];
  /** The tail of each call's chain of writes. */
  readonly #chains = new Map<string, Promise<void>>();
  readonly #inFlight = new Set<Promise<void>>();
  /** Cancels a pause between attempts to set up the consumer when the persister closes. */
  readonly #closing = new AbortController();
  #subscription: DurableSubscription | undefined;
  #reading: Promise<void> | undefined;
  #closed = false;

  constructor(sql: Sql, log: PersisterLog = () => {}, options: PersisterOptions = {}) {
    this.#sql = sql;
    this.#log = log;
    this.#onApplied = options.onApplied;
  }

  /** Starts taking events from the bus. */
  listen(bus: Bus): this {
    this.#reading = this.#read(bus);
    return this;
  }

  /**
   * Settles once events flow: with NATS, the stream and the durable consumer exist. Only tests need to wait for it;
   * events published before are kept by the stream anyway, once it exists.
   */
  async ready(): Promise<void> {
    await this.#subscription?.ready;
  }

  /** Writes one event (after the call's earlier ones); resolves with what happened. */
  persist(callId: string, event: CallEvent): Promise<PersistResult> {
    let outcome: PersistResult = 'failed';
    const done = this.#enqueue(callId, event, WRITE_ATTEMPTS, (result, error) => {
      outcome = result;
      if (result === 'failed')
        this.#log('error', 'call event lost: it could not be written', {
          callId,
          type: event.type,
          error: String(error),
        });
    });
    return done.then(() => outcome);
  }

  /** Waits for every event taken so far to be written. */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Stops taking events; those already taken are written (and acknowledged) first. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort();
    this.#subscription?.stop();
    await this.#reading;
    await this.settled();
  }

  async #read(bus: Bus): Promise<void> {
    while (!this.#closed) {
      try {
        const subscription = bus.consume(subjects.allCallEvents(), CALL_EVENTS_CONSUMER);
        this.#subscription = subscription;
        for await (const message of subscription) {
          this.#take(message);
          while (this.#inFlight.size >= MAX_EVENTS_IN_FLIGHT) await Promise.race(this.#inFlight);
        }
        // The consumer ended without an error: it was stopped, or the bus closed.
        return;
      } catch (error) {
        if (this.#closed || bus.isClosed || isBusError(error, 'closed')) return;
        // The stream or consumer could not be set up (JetStream not enabled on the server, no permission…), or the
        // consumer broke off: no event is taken meanwhile, but the engines' events wait in the stream if it exists.
        this.#log('error', 'call events are not being taken: the durable consumer failed; trying again', {
          retryInMs: CONSUME_RETRY_MS,
          error: String(error),
        });
        await sleep(CONSUME_RETRY_MS, undefined, { signal: this.#closing.signal }).catch(() => {});
      }
    }
  }

  /** Queues a delivered event behind its call's earlier ones; answers the bus once it was written or failed. */
  #take(message: DurableMessage): void {
    const callId = message.subject.split('.')[2] ?? '';
    let event: CallEvent;
    try {
      event = callCodecs.event.decode(message.data);
    } catch (error) {
      this.#log('warn', 'call event ignored: not a call event', { callId, error: String(error) });
      // No delivery will make it readable.
      message.ack();
      return;
    }
    void this.#enqueue(callId, event, 1, (outcome, error) => {
      if (outcome !== 'failed') {
        message.ack();
        return;
      }
      const { deliveryCount } = message;
      const last = CALL_EVENTS_CONSUMER.maxDeliver !== undefined && deliveryCount >= CALL_EVENTS_CONSUMER.maxDeliver;
      // Closing: give it straight back, for another instance (or this one's successor) to write.
      const delayMs = this.#closed ? 0 : Math.min(NAK_FIRST_DELAY_MS * 2 ** (deliveryCount - 1), NAK_MAX_DELAY_MS);
      this.#log(
        last ? 'error' : 'warn',
        last
          ? 'call event lost: it could not be written in any delivery'
          : 'call event not written yet: it will be delivered again',
        {
          callId,
          type: event.type,
          deliveryCount,
          retryInMs: delayMs,
          error: String(error),
        },
      );
      message.nak(delayMs);
    });
  }

  /**
   * @param attempts tries before the write counts as failed (one when the bus redelivers instead)
   * @param report told what became of the event, and the database's last error when it failed
   */
  #enqueue(
    callId: string,
    event: CallEvent,
    attempts: number,
    report: (outcome: PersistResult, error?: unknown) => void,
  ): Promise<void> {
    const previous = this.#chains.get(callId) ?? Promise.resolve();
    const work = previous.then(async () => {
      let failure: unknown;
      const outcome = await this.#write(callId, event, attempts, (error) => {
        failure = error;
      });
      report(outcome, failure);
    });
    this.#chains.set(callId, work);
    this.#inFlight.add(work);
    void work.finally(() => {
      this.#inFlight.delete(work);
      if (this.#chains.get(callId) === work) this.#chains.delete(callId);
    });
    return work;
  }

  async #write(
    callId: string,
    event: CallEvent,
    attempts: number,
    failed: (error: unknown) => void,
  ): Promise<PersistResult> {
    if (!isId(callId)) {
      this.#log('warn', 'call event ignored: the call id is not a call record id', { callId, type: event.type });
      return 'unknown_call';
    }
    for (let attempt = 1; ; attempt += 1) {
      try {
        const outcome = await persistCallEvent(this.#sql, callId, event);
        if (outcome === 'unknown_call')
          this.#log('warn', 'call event ignored: no such call record', { callId, type: event.type });
        if (outcome === 'applied') this.#onApplied?.(callId, event);
        return outcome;
      } catch (error) {
        if (attempt >= attempts || this.#closed) {
          failed(error);
          return 'failed';
        }
        await sleep(WRITE_RETRY_DELAY_MS * 2 ** (attempt - 1));
      }
    }
  }
}
