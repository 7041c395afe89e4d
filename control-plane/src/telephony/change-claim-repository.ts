/**
 * The claims of telephony_changes and the advisory lock they are taken under: the only SQL of the change lock
 * (change-lock.ts holds its rules). A claim is one running change of a carrier account, alive until `expires_at`.
 */
import type { Queryable } from '../db/database.ts';
import type { Carrier } from './carrier.ts';

/** First key of the two-key advisory lock space for carrier-account changes (other users of advisory locks hash one text key). */
export const CHANGE_LOCK_CLASS = 0x7e1e;

export type ChangeOperation = 'connect' | 'sync' | 'disconnect';

/**
 * Takes the account's transaction-level advisory lock, waiting at most `waitMs` (lock_timeout, then restored so
 * the change's own writes wait for row locks as any write does). Fails with 55P03 when the wait runs out.
 */
export async function lockAccountChanges(tx: Queryable, key: string, waitMs: number): Promise<void> {
  const previous = await tx<{ setting: string }[]>`select current_setting('lock_timeout') as setting`;
  await tx`select set_config('lock_timeout', ${`${waitMs}ms`}, true)`;
  await tx`select pg_advisory_xact_lock(${CHANGE_LOCK_CLASS}::int, hashtext(${key}))`;
  await tx`select set_config('lock_timeout', ${previous[0]!.setting}, true)`;
}

/** The live claim on the key, if a change is running. */
export async function runningChange(
  tx: Queryable,
  key: string,
): Promise<{ operation: ChangeOperation; started_at: Date } | undefined> {
  const [running] = await tx<{ operation: ChangeOperation; started_at: Date }[]>`
    select operation, started_at from telephony_changes where lock_key = ${key} and expires_at > now()`;
  return running;
}

/** Replaces any lapsed claim on the key with a new one lasting `leaseMs`; when it started, also as exact text. */
export async function insertClaim(
  tx: Queryable,
  claim: {
    id: string;
    key: string;
    organisationId: string;
    provider: Carrier;
    operation: ChangeOperation;
    leaseMs: number;
  },
): Promise<{ startedAt: Date; startedAtExact: string }> {
  await tx`delete from telephony_changes where lock_key = ${claim.key}`;
  const [row] = await tx<{ started_at: Date; exact: string }[]>`
    insert into telephony_changes (id, lock_key, organisation_id, provider, operation, started_at, expires_at)
    values (${claim.id}, ${claim.key}, ${claim.organisationId}, ${claim.provider}, ${claim.operation}, now(),
            now() + make_interval(secs => ${claim.leaseMs / 1000}))
    returning started_at, started_at::text as exact`;
  return { startedAt: row!.started_at, startedAtExact: row!.exact };
}

/** Whether the claim is still alive, locking it for the caller's transaction. */
export async function holdLiveClaim(tx: Queryable, id: string): Promise<boolean> {
  const [mine] = await tx`select 1 from telephony_changes where id = ${id} and expires_at > now() for update`;
  return mine !== undefined;
}

export async function deleteClaim(sql: Queryable, id: string): Promise<void> {
  await sql`delete from telephony_changes where id = ${id}`;
}
