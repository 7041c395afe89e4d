/**
 * The control plane's ear on the engines (DESIGN.md §3 step 6): every call's events (`v1.call.*.event`) are taken in
 * the `control-plane` queue group, so one instance handles each event, and written to Postgres by call-event-store.ts,
 * idempotently (an event seen before changes nothing).
 *
 * Within this process the events of one call are applied one after another, in the order they arrived; different
 * calls proceed side by side, at most MAX_EVENTS_IN_FLIGHT at once. Across instances, a call's row lock serialises.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Bus, Subscription } from '@parley/engine/bus';
import { callCodecs, queues, subjects, type CallEvent } from '@parley/engine/protocol';
import type { Sql } from '../db/database.ts';
import { isId } from '../db/ids.ts';
import { persistCallEvent, type PersistOutcome } from './call-event-store.ts';

/** What became of an event: applied, a duplicate, for no known call, or not written (the database kept failing). */
export type PersistResult = PersistOutcome | 'failed';

/**
 * Events being written at once by this process. Beyond it the listener stops reading, and the subscription's own
 * buffer (1,024 messages) takes the burst: at a few ms per write that is seconds of a thousand busy calls.
 */
const MAX_EVENTS_IN_FLIGHT = 256;
/** Tries per event when the database fails; a call's record is worth a short wait, not a stuck listener. */
const WRITE_ATTEMPTS = 3;
/** Pause before the second try, ms; doubled before the third. */
const WRITE_RETRY_DELAY_MS = 250;

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
  #subscription: Subscription | undefined;
  #reading: Promise<void> | undefined;
  #closed = false;

  constructor(sql: Sql, log: PersisterLog = () => {}, options: PersisterOptions = {}) {
    this.#sql = sql;
    this.#log = log;
    this.#onApplied = options.onApplied;
  }

  /** Starts taking events from the bus. */
  listen(bus: Bus): this {
    const subscription = bus.subscribe(subjects.allCallEvents(), { queue: queues.controlPlane });
    this.#subscription = subscription;
    this.#reading = (async () => {
      for await (const message of subscription) {
        const callId = message.subject.split('.')[2] ?? '';
        let event: CallEvent;
        try {
          event = callCodecs.event.decode(message.data);
        } catch (error) {
          this.#log('warn', 'call event ignored: not a call event', { callId, error: String(error) });
          continue;
        }
        this.#enqueue(callId, event);
        while (this.#inFlight.size >= MAX_EVENTS_IN_FLIGHT) await Promise.race(this.#inFlight);
      }
    })();
    return this;
  }

  /** Writes one event (after the call's earlier ones); resolves with what happened. */
  persist(callId: string, event: CallEvent): Promise<PersistResult> {
    let outcome: PersistResult = 'failed';
    const done = this.#enqueue(callId, event, (result) => { outcome = result; });
    return done.then(() => outcome);
  }

  /** Waits for every event taken so far to be written. */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#subscription?.unsubscribe();
    await this.#reading;
    await this.settled();
  }

  #enqueue(callId: string, event: CallEvent, report?: (outcome: PersistResult) => void): Promise<void> {
    const previous = this.#chains.get(callId) ?? Promise.resolve();
    const work = previous.then(async () => {
      const outcome = await this.#write(callId, event);
      report?.(outcome);
    });
    this.#chains.set(callId, work);
    this.#inFlight.add(work);
    void work.finally(() => {
      this.#inFlight.delete(work);
      if (this.#chains.get(callId) === work) this.#chains.delete(callId);
    });
    return work;
  }

  async #write(callId: string, event: CallEvent): Promise<PersistResult> {
    if (!isId(callId)) {
      this.#log('warn', 'call event ignored: the call id is not a call record id', { callId, type: event.type });
      return 'unknown_call';
    }
    for (let attempt = 1; ; attempt += 1) {
      try {
        const outcome = await persistCallEvent(this.#sql, callId, event);
        if (outcome === 'unknown_call') this.#log('warn', 'call event ignored: no such call record', { callId, type: event.type });
        if (outcome === 'applied') this.#onApplied?.(callId, event);
        return outcome;
      } catch (error) {
        if (attempt >= WRITE_ATTEMPTS || this.#closed) {
          this.#log('error', 'call event lost: it could not be written', { callId, type: event.type, error: String(error) });
          return 'failed';
        }
        await sleep(WRITE_RETRY_DELAY_MS * 2 ** (attempt - 1));
      }
    }
  }
}
