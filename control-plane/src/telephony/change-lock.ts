/**
 * One change at a time per carrier account (spec document 2: connect, sync and disconnect; document 3: 409 busy,
 * 503 when "the lock serialising carrier changes" cannot be taken, nothing changed in either case).
 *
 * A change runs in three steps, none of which holds a database connection while the carrier is called:
 * 1. Claim — in a short transaction holding the account's Postgres advisory lock, a live claim in
 *    telephony_changes means another change is running (409 change_in_progress); otherwise this change inserts its
 *    own claim, leased for CHANGE_LEASE_MS.
 * 2. Work — the caller reads the carrier (and may act there) with no lock held; other changes of the account are
 *    refused by the claim meanwhile.
 * 3. Commit — one transaction takes the advisory lock again, checks the claim is still this change's and unexpired
 *    (else 409 change_timed_out: the change ran too long and another may have started), applies every write and
 *    deletes the claim. It all commits, or nothing does.
 * The advisory lock is waited for at most LOCK_WAIT_MS in either step; when it cannot be taken (held by a stuck
 * session, or the database failing) the answer is 503 lock_unavailable and no row was changed. A claim that was
 * taken is released on any failure, and lapses by itself if the process dies.
 *
 * Carrier-side effects of the work step (carrier-a pointing numbers at its application) are not rolled back by a
 * failed commit: adapters keep them idempotent so the next connect or sync finishes the job.
 */
import postgres from 'postgres';
import type { Sql, TransactionSql } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import { ApiError } from '../errors.ts';
import type { Carrier } from './carrier.ts';
import {
  CHANGE_LOCK_CLASS,
  deleteClaim,
  holdLiveClaim,
  insertClaim,
  lockAccountChanges,
  runningChange,
  type ChangeOperation,
} from './change-claim-repository.ts';

/**
 * Longest wait for the advisory lock. The sections holding it run a few statements (claim) or one account's
 * writes (commit), milliseconds each; a wait of 3 s means a session holds it that is not a change of ours, or the
 * database is struggling: answer 503 rather than queue requests behind it.
 */
export const LOCK_WAIT_MS = 3_000;
/**
 * Lease of a claim. Reading even a large account (a few pages of 1,000 numbers) takes seconds; a change still
 * running after 2 minutes is stuck, so its claim lapses and the account can be changed again.
 */
export const CHANGE_LEASE_MS = 120_000;
export { CHANGE_LOCK_CLASS, type ChangeOperation };

export interface ChangeScope {
  organisationId: string;
  provider: Carrier;
  operation: ChangeOperation;
}

export interface Change {
  /** Database time the change was claimed: rows touched after it were not seen by the carrier read. */
  readonly startedAt: Date;
  /**
   * The same time as Postgres wrote it, to the microsecond (a Date keeps milliseconds): compare rows' timestamps
   * with it in SQL (`${change.startedAtExact}::timestamptz`).
   */
  readonly startedAtExact: string;
  /**
   * Applies the change's writes in one transaction holding the account's lock; the claim is released in it.
   * Call at most once, at the end of the work.
   */
  commit<T>(write: (tx: TransactionSql) => Promise<T>): Promise<T>;
}

/** The advisory lock's text key of an organisation's account on a carrier (second key: its hashtext). */
export function changeLockKey(organisationId: string, provider: Carrier): string {
  return `telephony:${provider}:${organisationId}`;
}

const OPERATION_WORDS: Record<ChangeOperation, string> = {
  connect: 'A connect',
  sync: 'A sync',
  disconnect: 'A disconnect',
};

export class ChangeLock {
  readonly #sql: Sql;
  readonly #waitMs: number;
  readonly #leaseMs: number;

  constructor(sql: Sql, options: { waitMs?: number; leaseMs?: number } = {}) {
    this.#sql = sql;
    this.#waitMs = options.waitMs ?? LOCK_WAIT_MS;
    this.#leaseMs = options.leaseMs ?? CHANGE_LEASE_MS;
  }

  /** Runs `work` as the one change of the scope's carrier account; see the file comment for the guarantees. */
  async run<T>(scope: ChangeScope, work: (change: Change) => Promise<T>): Promise<T> {
    const key = changeLockKey(scope.organisationId, scope.provider);
    const claim = await this.#claim(key, scope);
    let committed = false;
    const change: Change = {
      startedAt: claim.startedAt,
      startedAtExact: claim.startedAtExact,
      commit: async (write) => {
        if (committed) throw new Error('a change commits once');
        committed = true;
        return this.#commit(key, claim.id, scope, write);
      },
    };
    try {
      return await work(change);
    } finally {
      // After a commit the claim is gone with it; otherwise (no commit, or a failed one) it is released here.
      await deleteClaim(this.#sql, claim.id).catch(() => {});
    }
  }

  async #claim(key: string, scope: ChangeScope): Promise<{ id: string; startedAt: Date; startedAtExact: string }> {
    const id = newId();
    return this.#sql
      .begin(async (tx) => {
        await this.#lock(tx, key);
        const running = await runningChange(tx, key);
        if (running) {
          throw new ApiError(
            'change_in_progress',
            `${OPERATION_WORDS[running.operation]} of this organisation's ${scope.provider} account is still running ` +
              `(since ${running.started_at.toISOString()}); try again when it has finished`,
          );
        }
        const started = await insertClaim(tx, {
          id,
          key,
          organisationId: scope.organisationId,
          provider: scope.provider,
          operation: scope.operation,
          leaseMs: this.#leaseMs,
        });
        return { id, ...started };
      })
      .catch((error: unknown) => {
        throw asLockFailure(error, scope);
      });
  }

  async #commit<T>(key: string, id: string, scope: ChangeScope, write: (tx: TransactionSql) => Promise<T>): Promise<T> {
    let locked = false;
    try {
      // Wrapped: begin() would treat an array result as promises to await.
      const done = await this.#sql.begin(async (tx) => {
        await this.#lock(tx, key);
        locked = true;
        if (!(await holdLiveClaim(tx, id))) {
          throw new ApiError(
            'change_timed_out',
            `The ${scope.operation} of this organisation's ${scope.provider} account ran too long and was abandoned; nothing was changed. Try again`,
          );
        }
        const value = await write(tx);
        await deleteClaim(tx, id);
        return { value };
      });
      return done.value;
    } catch (error) {
      // Only a failure to take the lock is the lock's; the write's own errors pass through as they are.
      throw locked ? error : asLockFailure(error, scope);
    }
  }

  /** Takes the account's transaction-level advisory lock, waiting at most the lock wait. */
  #lock(tx: TransactionSql, key: string): Promise<void> {
    return lockAccountChanges(tx, key, this.#waitMs);
  }
}

/** Anything but our own refusals, while taking the lock, is the lock that could not be taken: 503. */
function asLockFailure(error: unknown, scope: ChangeScope): unknown {
  if (error instanceof ApiError) return error;
  const timedOut = error instanceof postgres.PostgresError && error.code === '55P03';
  return new ApiError(
    'lock_unavailable',
    `The lock serialising changes to this organisation's ${scope.provider} account could not be taken` +
      `${timedOut ? ' in time' : ''}; nothing was changed. Try again shortly`,
    { cause: error },
  );
}
