/**
 * The control plane's watch over the engines (docs/architecture.md §18). Every engine publishes a heartbeat each
 * second (`v1.engine.<engineId>.heartbeat`: the calls it holds, whether it is draining); every control-plane instance
 * hears them all. An engine heard from and then silent for ENGINE_LOST_AFTER_MS was killed or lost its host: its live
 * calls are finished FAILED with metaData.endReason `engine_lost`, ended when the engine was last heard, billed for
 * the time they were answered (billing/metering.ts: once, whichever end applies first), their carrier call and SIP
 * leg hung up. New calls need nothing: a dead engine's dispatch subscription is gone from the queue group.
 *
 * Instances watching together take the calls FOR UPDATE SKIP LOCKED and finishCall ends each once, so two instances
 * noticing the same loss never finish a call twice. An engine this instance never heard (it was down when the
 * engine died, or the engine predates heartbeats) is left to the sweeper (call-sweeper.ts), as is an engine that
 * left cleanly: its last beat said it was draining and held no call, so its calls' ends are on their way.
 */
import type { Bus, Subscription } from '@parley/engine/bus';
import {
  callCodecs,
  ENGINE_LOST_AFTER_MS,
  engineCodecs,
  subjects,
  type EngineHeartbeat,
} from '@parley/engine/protocol';
import { PollLoop } from '../../background/poll-loop.ts';
import type { Sql } from '../../db/database.ts';
import { meterCall } from '../../billing/metering.ts';
import { finishCall } from '../repository/call-repository.ts';
import { claimCallsOfEngine } from '../repository/job-repository.ts';
import { hangUpSipLeg } from '../launch/sip-calls.ts';

/** How often the watch looks for silent engines, ms: with ENGINE_LOST_AFTER_MS, a lost call ends within ~6 s. */
export const ENGINE_WATCH_INTERVAL_MS = 1_000;
/**
 * After this instance's bus reconnects, no engine is judged lost for this long, ms: the engines are reconnecting
 * too (the client retries every 2 s), and their silence meanwhile says nothing about them.
 */
export const RECONNECT_GRACE_MS = 10_000;
/** Calls of one lost engine finished per transaction: an engine's whole load is a few hundred calls. */
const LOST_CALLS_BATCH = 100;

/** The `endReason` of a call whose engine was lost. */
export const ENGINE_LOST = 'engine_lost';

export type EngineWatchLog = (level: 'info' | 'warn' | 'error', message: string, detail: object) => void;

export interface EngineWatchOptions {
  /** Hangs up the call at its carrier (CarrierCallControl.hangUp); a call with no carrier leg is left alone. */
  hangUpCarrier?: (callId: string) => Promise<void>;
  lostAfterMs?: number;
  intervalMs?: number;
}

interface HeardEngine {
  lastHeardAt: number;
  last: EngineHeartbeat;
}

export class EngineWatch {
  readonly #sql: Sql;
  readonly #bus: Bus;
  readonly #log: EngineWatchLog;
  readonly #hangUpCarrier: (callId: string) => Promise<void>;
  readonly #lostAfterMs: number;
  readonly #engines = new Map<string, HeardEngine>();
  readonly #loop: PollLoop;
  readonly #pending = new Set<Promise<unknown>>();
  #subscription: Subscription | undefined;
  #stopConnectionWatch: (() => void) | undefined;
  /** No engine is judged lost before this time (epoch ms): this instance's own bus was away. */
  #quietUntil = 0;

  constructor(sql: Sql, bus: Bus, log: EngineWatchLog = () => {}, options: EngineWatchOptions = {}) {
    this.#sql = sql;
    this.#bus = bus;
    this.#log = log;
    this.#hangUpCarrier = options.hangUpCarrier ?? (async () => {});
    this.#lostAfterMs = options.lostAfterMs ?? ENGINE_LOST_AFTER_MS;
    this.#loop = new PollLoop({
      pass: () => this.runOnce(),
      intervalMs: options.intervalMs ?? ENGINE_WATCH_INTERVAL_MS,
      onError: (error) => this.#log('error', 'engine watch failed', { error: String(error) }),
    });
  }

  start(): this {
    const subscription = this.#bus.subscribe(subjects.allEngineHeartbeats());
    this.#subscription = subscription;
    void (async () => {
      for await (const message of subscription) this.#heard(message.data);
    })();
    this.#stopConnectionWatch = this.#bus.onConnectionChange((connected) => {
      if (connected) this.#quietUntil = Date.now() + RECONNECT_GRACE_MS;
    });
    this.#loop.start();
    return this;
  }

  async stop(): Promise<void> {
    this.#stopConnectionWatch?.();
    this.#subscription?.unsubscribe();
    await this.#loop.stop();
    await Promise.allSettled([...this.#pending]);
  }

  /** The engines heard and not yet lost, with what each said last. */
  get engines(): EngineHeartbeat[] {
    return [...this.#engines.values()].map((engine) => engine.last);
  }

  /** One pass: finishes the calls of every engine silent past the limit; answers the ids of the calls finished. */
  async runOnce(): Promise<string[]> {
    const now = Date.now();
    // Silence heard through a broken connection is our own: judge nobody until the bus is back, and a while after.
    if (!this.#bus.isConnected || now < this.#quietUntil) return [];
    const finished: string[] = [];
    for (const [engineId, engine] of this.#engines) {
      if (now - engine.lastHeardAt <= this.#lostAfterMs) continue;
      if (engine.last.draining && engine.last.calls.length === 0) {
        this.#engines.delete(engineId);
        this.#log('info', 'engine left after draining', { engineId });
        continue;
      }
      const calls = await this.#finishCallsOf(engineId, new Date(engine.lastHeardAt));
      // Forgotten only once its calls are finished: a failed pass (the database away) tries again next time.
      if (this.#engines.get(engineId) === engine) this.#engines.delete(engineId);
      this.#log('warn', 'engine lost: its calls were finished', {
        engineId,
        silentForMs: now - engine.lastHeardAt,
        calls,
      });
      finished.push(...calls);
    }
    return finished;
  }

  #heard(data: Uint8Array): void {
    let beat: EngineHeartbeat;
    try {
      beat = engineCodecs.heartbeat.decode(data);
    } catch (error) {
      this.#log('warn', 'engine heartbeat ignored: not a heartbeat', { error: String(error) });
      return;
    }
    this.#engines.set(beat.engineId, { lastHeardAt: Date.now(), last: beat });
  }

  async #finishCallsOf(engineId: string, lastHeardAt: Date): Promise<string[]> {
    const all: string[] = [];
    for (;;) {
      const batch = await this.#sql.begin(async (tx) => {
        const calls = await claimCallsOfEngine(tx, engineId, lastHeardAt, LOST_CALLS_BATCH);
        const done: { id: string; sip: boolean }[] = [];
        for (const call of calls) {
          const finished = await finishCall(tx, call.id, {
            status: 'FAILED',
            outcome: 'failed',
            outcomeDetail: 'The engine running the call was lost (it stopped without ending its calls)',
            reason: ENGINE_LOST,
            endedAt: call.ended_at,
          });
          if (!finished) continue;
          // The engine's `ended` will never come (or comes later and finds the call billed): bill it now, once.
          await meterCall(tx, call.id);
          done.push({ id: call.id, sip: finished.row.sip_configuration_id !== null });
        }
        return { claimed: calls.length, done };
      });
      for (const call of batch.done) this.#hangUp(call.id, call.sip);
      all.push(...batch.done.map((call) => call.id));
      if (batch.claimed < LOST_CALLS_BATCH) return all;
    }
  }

  /** The call's other legs: the carrier's call, the SIP gateway's leg, and the engine itself should it be alive. */
  #hangUp(callId: string, sip: boolean): void {
    if (sip) hangUpSipLeg(this.#bus, callId, ENGINE_LOST);
    this.#bus.publish(subjects.callControl(callId), callCodecs.control.encode({ type: 'end', reason: ENGINE_LOST }));
    const work = this.#hangUpCarrier(callId).catch((error: unknown) =>
      this.#log('warn', 'carrier hang-up failed', { callId, error: String(error) }),
    );
    this.#pending.add(work);
    void work.finally(() => this.#pending.delete(work));
  }
}
