/**
 * Places scheduled calls when they come due (POST /voice/session with callTime, POST /voice/callback with dateTime).
 * Each pass claims due calls — scheduled_status PENDING → DISPATCHED in one statement over rows taken FOR UPDATE
 * SKIP LOCKED — so control-plane instances scheduling together never place the same call twice; then starts each
 * claimed call (placement.ts `startRecorded`). A call that cannot be placed is finished FAILED by placement, and its
 * scheduled_status set FAILED here.
 *
 * A claim whose instance died before placing the call leaves it SCHEDULED with scheduled_status DISPATCHED; after
 * CLAIM_TIMEOUT_MS such a call is finished FAILED (`scheduler_lost`) rather than placed late, or twice.
 */
import { PollLoop } from '../../background/poll-loop.ts';
import type { Sql } from '../../db/database.ts';
import { finishCall } from '../repository/call-repository.ts';
import { claimDueScheduledCalls, failLostClaims, markScheduleFailed } from '../repository/job-repository.ts';
import type { PlacementLog } from '../launch/engine-dispatch.ts';

/** How often the scheduler looks for due calls, ms: a call is placed at most this late. */
export const SCHEDULER_INTERVAL_MS = 1_000;
/** Calls claimed per pass (each is placed before the next pass). */
const CLAIM_BATCH_SIZE = 20;
/** A claimed call that is still not placed after this long was lost with its instance, ms. */
export const CLAIM_TIMEOUT_MS = 2 * 60_000;

export interface ScheduledCallStarter {
  startRecorded(callId: string): Promise<void>;
}

export interface SchedulerOptions {
  intervalMs?: number;
  claimTimeoutMs?: number;
}

export class CallScheduler {
  readonly #sql: Sql;
  readonly #starter: ScheduledCallStarter;
  readonly #log: PlacementLog;
  readonly #claimTimeoutMs: number;
  readonly #loop: PollLoop;

  constructor(sql: Sql, starter: ScheduledCallStarter, log: PlacementLog = () => {}, options: SchedulerOptions = {}) {
    this.#sql = sql;
    this.#starter = starter;
    this.#log = log;
    this.#claimTimeoutMs = options.claimTimeoutMs ?? CLAIM_TIMEOUT_MS;
    this.#loop = new PollLoop({
      pass: () => this.runOnce(),
      intervalMs: options.intervalMs ?? SCHEDULER_INTERVAL_MS,
      onError: (error) => this.#log('error', 'scheduler pass failed', { error: String(error) }),
    });
  }

  start(): this {
    this.#loop.start();
    return this;
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /** One pass: places the calls due now; answers the ids it claimed. */
  async runOnce(): Promise<string[]> {
    await this.#finishLostClaims();
    const claimed = await claimDueScheduledCalls(this.#sql, CLAIM_BATCH_SIZE);
    for (const id of claimed) {
      try {
        await this.#starter.startRecorded(id);
      } catch (error) {
        await markScheduleFailed(this.#sql, id);
        this.#log('warn', 'a scheduled call could not be placed', {
          callId: id,
          error: error instanceof Error ? error.message : String(error),
        });
      }
    }
    return claimed;
  }

  async #finishLostClaims(): Promise<void> {
    const lost = await failLostClaims(this.#sql, this.#claimTimeoutMs);
    for (const id of lost) {
      await finishCall(this.#sql, id, {
        status: 'FAILED',
        outcome: 'failed',
        reason: 'scheduler_lost',
        outcomeDetail: 'the instance that claimed the call stopped before placing it',
        analyse: false,
      });
      this.#log('warn', 'a scheduled call was lost with the instance that claimed it', { callId: id });
    }
  }
}
