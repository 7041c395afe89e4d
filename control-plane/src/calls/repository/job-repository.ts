/**
 * The call record as the background jobs of calls/jobs/ claim it: the scheduler's due calls and lost claims, and the
 * sweeper's lost live calls. Every claim takes its rows FOR UPDATE SKIP LOCKED, so control-plane instances running
 * the same job never take the same call.
 */
import type { Queryable } from '../../db/database.ts';

interface StaleCall {
  id: string;
  organisation_id: string;
  reason: 'engine_silent' | 'max_duration_exceeded';
  answered: boolean;
  ended_at: Date;
  duration_ms: number;
}

export interface SweepLimits {
  /** Engine silence after which a live call is lost, ms. */
  silenceMs: number;
  /** Grace past a call's maximum duration, ms. */
  marginMs: number;
  /** The maximum duration of a record that carries none, ms. */
  defaultMaxDurationMs: number;
  /** Calls claimed at most. */
  limit: number;
}

/** Live calls whose engine went silent or that ran past their maximum duration, locked for the caller's transaction. */
export function claimStaleCalls(tx: Queryable, limits: SweepLimits): Promise<StaleCall[]> {
  return tx<StaleCall[]>`
    select id, organisation_id, reason, answered_at is not null as answered, end_at as ended_at,
           greatest(0, round(extract(epoch from (end_at - coalesce(answered_at, started_at))) * 1000))::integer as duration_ms
      from (select *,
              case when coalesce(last_event_at, started_at) < now() - make_interval(secs => ${limits.silenceMs / 1000})
                   then 'engine_silent' else 'max_duration_exceeded' end as reason,
              case when coalesce(last_event_at, started_at) < now() - make_interval(secs => ${limits.silenceMs / 1000})
                   then greatest(coalesce(last_event_at, started_at), started_at) else now() end as end_at
              from call_records
             where ended_at is null and call_status in ('INITIATED', 'RINGING', 'IN_PROGRESS')
               and (coalesce(last_event_at, started_at) < now() - make_interval(secs => ${limits.silenceMs / 1000})
                    or started_at + make_interval(secs => (coalesce(max_duration_ms, ${limits.defaultMaxDurationMs}) + ${limits.marginMs}) / 1000.0) < now())
             order by started_at
             limit ${limits.limit}
             for update skip locked) as stale`;
}

/**
 * Calls recorded QUEUED (being placed) more than `olderThanMs` ago and never handed to an engine: the instance
 * placing them died. Locked for the caller's transaction.
 */
export async function claimLostPlacements(tx: Queryable, olderThanMs: number, limit: number): Promise<string[]> {
  const rows = await tx<{ id: string }[]>`
    select id from call_records
     where ended_at is null and call_status = 'QUEUED' and created_at < now() - make_interval(secs => ${olderThanMs / 1000})
     order by organisation_id, id
     limit ${limit}
     for update skip locked`;
  return rows.map((row) => row.id);
}

/** Claims up to `limit` scheduled calls that are due (PENDING → DISPATCHED); answers their ids. */
export async function claimDueScheduledCalls(sql: Queryable, limit: number): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    update call_records set scheduled_status = 'DISPATCHED', updated_at = now()
     where id in (select id from call_records
                   where scheduled_status = 'PENDING' and call_status = 'SCHEDULED' and ended_at is null
                     and scheduled_time <= now()
                   order by scheduled_time
                   limit ${limit}
                   for update skip locked)
    returning id`;
  return rows.map((row) => row.id);
}

/** Claims older than `claimTimeoutMs` whose instance never placed the call: marked FAILED; answers their ids. */
export async function failLostClaims(sql: Queryable, claimTimeoutMs: number): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    update call_records set scheduled_status = 'FAILED', updated_at = now()
     where id in (select id from call_records
                   where scheduled_status = 'DISPATCHED' and call_status = 'SCHEDULED' and ended_at is null
                     and updated_at < now() - make_interval(secs => ${claimTimeoutMs / 1000})
                   for update skip locked)
    returning id`;
  return rows.map((row) => row.id);
}

/** A claimed call that could not be placed. */
export async function markScheduleFailed(sql: Queryable, callId: string): Promise<void> {
  await sql`update call_records set scheduled_status = 'FAILED', updated_at = now() where id = ${callId}`;
}

interface LostEngineCall {
  id: string;
  organisation_id: string;
  /** When the call is taken to have ended: the engine's last sign of life, never before the call was answered. */
  ended_at: Date;
}

/**
 * The live calls (INITIATED, RINGING, IN_PROGRESS) an engine held, for the engine watch to finish once the engine is
 * lost (docs/architecture.md §18), locked for the caller's transaction. `lastHeardAt` is when the engine was last
 * heard from.
 */
export function claimCallsOfEngine(
  tx: Queryable,
  engineId: string,
  lastHeardAt: Date,
  limit: number,
): Promise<LostEngineCall[]> {
  return tx<LostEngineCall[]>`
    select id, organisation_id, greatest(${lastHeardAt}::timestamptz, coalesce(answered_at, created_at)) as ended_at
      from call_records
     where engine_id = ${engineId} and ended_at is null and call_status in ('INITIATED', 'RINGING', 'IN_PROGRESS')
     order by organisation_id, id
     limit ${limit}
     for update skip locked`;
}

/**
 * The scheduler's lag (docs/architecture.md §19): scheduled calls due and not yet claimed, and how long the oldest
 * has been due, seconds (0 when none). The predicate is claimDueScheduledCalls' own.
 */
export async function scheduledCallsLag(sql: Queryable): Promise<{ backlog: number; lagSeconds: number }> {
  const [row] = await sql<{ backlog: number; lag_seconds: number }[]>`
    select count(*)::int as backlog,
           coalesce(extract(epoch from now() - min(scheduled_time)), 0)::float8 as lag_seconds
      from call_records
     where scheduled_status = 'PENDING' and call_status = 'SCHEDULED' and ended_at is null
       and scheduled_time <= now()`;
  return { backlog: row!.backlog, lagSeconds: row!.lag_seconds };
}
