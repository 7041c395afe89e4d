/**
 * No call stays "in progress" for ever. An engine that crashed, or lost the bus, never publishes its call's `ended`.
 * The engine watch (engine-watch.ts) finishes such calls within seconds when this instance heard the engine's
 * heartbeats; the sweeper is the backstop for the rest (docs/architecture.md §18): it finds live calls (INITIATED,
 * RINGING, IN_PROGRESS) whose engine has said nothing for ENGINE_SILENCE_MS, or that have run past their maximum duration plus MAX_DURATION_MARGIN_MS, and finishes them
 * itself: COMPLETED when they were answered (FAILED otherwise), metaData.endReason `engine_silent` or
 * `max_duration_exceeded`, post-call analysis queued, the call billed (billing/metering.ts). Calls left QUEUED by an
 * instance that died while placing them are finished FAILED (`placement_lost`). It also tells the engine to hang up, in case it is alive,
 * and the SIP gateway holding a SIP call's leg (`v1.sip.<callId>.control`).
 *
 * Calls are claimed with FOR UPDATE SKIP LOCKED, so control-plane instances sweeping together never finish one twice.
 */
import type { Bus } from '@parley/engine/bus';
import { callCodecs, subjects } from '@parley/engine/protocol';
import { PollLoop } from '../../background/poll-loop.ts';
import type { Sql } from '../../db/database.ts';
import { finishCall } from '../repository/call-repository.ts';
import { meterCall } from '../../billing/metering.ts';
import { claimLostPlacements, claimStaleCalls } from '../repository/job-repository.ts';
import { QUEUED_HOLDS_LINE_MS } from '../../billing/call-admission.ts';
import { hangUpSipLeg } from '../launch/sip-calls.ts';

/**
 * Engine silence after which a live call is taken for lost, ms. A call in conversation publishes a state change at
 * every turn, and the engine's own inactivity limit ends a silent caller's call within a few minutes.
 */
export const ENGINE_SILENCE_MS = 10 * 60_000;
/** Grace past a call's maximum duration before the sweeper ends it, ms: the engine's closing line and hang-up. */
export const MAX_DURATION_MARGIN_MS = 2 * 60_000;
/** The maximum duration of a call whose record does not carry one (placed before limits were recorded), ms. */
export const DEFAULT_MAX_CALL_DURATION_MS = 60 * 60_000;
/** How often the sweeper looks, ms: a lost call shows as live at most this much longer than the limits above. */
export const SWEEP_INTERVAL_MS = 30_000;
/** Calls finished per pass: a backlog after an outage is worked through over a few passes. */
const SWEEP_BATCH_SIZE = 100;

export interface SweeperOptions {
  silenceMs?: number;
  marginMs?: number;
  intervalMs?: number;
}

export type SweeperLog = (level: 'info' | 'error', message: string, detail: object) => void;

export class CallSweeper {
  readonly #sql: Sql;
  readonly #bus: Bus;
  readonly #log: SweeperLog;
  readonly #silenceMs: number;
  readonly #marginMs: number;
  readonly #loop: PollLoop;

  constructor(sql: Sql, bus: Bus, log: SweeperLog = () => {}, options: SweeperOptions = {}) {
    this.#sql = sql;
    this.#bus = bus;
    this.#log = log;
    this.#silenceMs = options.silenceMs ?? ENGINE_SILENCE_MS;
    this.#marginMs = options.marginMs ?? MAX_DURATION_MARGIN_MS;
    const intervalMs = options.intervalMs ?? SWEEP_INTERVAL_MS;
    // Nothing is lost the moment a process starts: the first sweep comes an interval in, like every later one.
    this.#loop = new PollLoop({
      pass: () => this.runOnce(),
      intervalMs,
      firstDelayMs: intervalMs,
      onError: (error) => this.#log('error', 'call sweep failed', { error: String(error) }),
    });
  }

  start(): this {
    this.#loop.start();
    return this;
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** One pass; returns the ids of the calls it finished. */
  async runOnce(): Promise<string[]> {
    const finished = await this.#sql.begin(async (tx) => {
      const stale = await claimStaleCalls(tx, {
        silenceMs: this.#silenceMs,
        marginMs: this.#marginMs,
        defaultMaxDurationMs: DEFAULT_MAX_CALL_DURATION_MS,
        limit: SWEEP_BATCH_SIZE,
      });
      const ids: string[] = [];
      /** Calls whose SIP leg the gateway must hang up too. */
      const sipLegs: string[] = [];
      // A call still QUEUED long after it was recorded was being placed by an instance that died: it never reached
      // an engine. It stops holding a line (billing/call-admission.ts) either way; finished, it is also off the books.
      for (const id of await claimLostPlacements(tx, QUEUED_HOLDS_LINE_MS, SWEEP_BATCH_SIZE)) {
        const done = await finishCall(tx, id, {
          status: 'FAILED',
          outcome: 'failed',
          outcomeDetail: 'The instance placing the call stopped before an engine took it',
          reason: 'placement_lost',
          analyse: false,
        });
        if (done) ids.push(id);
        if (done?.row.sip_configuration_id) sipLegs.push(id);
      }
      // Billing each call locks its organisation's wallet until commit: taken in one order (organisation, then
      // call), two instances sweeping at once never wait on each other's wallets in a cycle.
      stale.sort((a, b) => a.organisation_id.localeCompare(b.organisation_id) || a.id.localeCompare(b.id));
      for (const call of stale) {
        const done = await finishCall(tx, call.id, {
          status: call.answered ? 'COMPLETED' : 'FAILED',
          outcome: call.answered ? 'completed' : 'failed',
          outcomeDetail:
            call.reason === 'engine_silent'
              ? 'The engine stopped reporting on the call'
              : 'The call ran past its maximum duration',
          reason: call.reason,
          endedAt: call.ended_at,
          durationMs: call.duration_ms,
        });
        if (!done) continue;
        // The engine's `ended` will never come (or comes later and finds the call billed): bill it now.
        await meterCall(tx, call.id);
        ids.push(call.id);
        if (done.row.sip_configuration_id) sipLegs.push(call.id);
      }
      return { ids, sipLegs };
    });
    for (const id of finished.sipLegs) hangUpSipLeg(this.#bus, id, 'finalised_by_control_plane');
    for (const id of finished.ids) {
      // A live but mute engine hangs up; a dead one never hears it.
      this.#bus.publish(
        subjects.callControl(id),
        callCodecs.control.encode({ type: 'end', reason: 'finalised_by_control_plane' }),
      );
    }
    if (finished.ids.length) this.#log('info', 'lost calls finished', { calls: finished.ids });
    return finished.ids;
  }
}
