/**
 * The post-call analysis jobs (`call_analysis_jobs`) and what they write on the call record. A job is leased with a
 * token; every write checks the lease is still ours, so a job whose lease ran out while the model was slow, and was
 * taken by another instance, writes nothing (`undefined` back).
 */
import type { Queryable, Sql } from '../../db/database.ts';
import type { AgentResult } from './call-records.ts';
import { json } from './call-repository.ts';

export interface ClaimedJob {
  id: string;
  call_id: string;
  attempts: number;
  lease_token: string;
}

/** Leases up to `limit` due jobs for `leaseSeconds` under `token`. */
export function claimDueJobs(
  sql: Queryable,
  lease: { token: string; leaseSeconds: number; limit: number },
): Promise<ClaimedJob[]> {
  return sql<ClaimedJob[]>`
    update call_analysis_jobs
       set next_attempt_at = now() + make_interval(secs => ${lease.leaseSeconds}),
           attempts = attempts + 1, lease_token = ${lease.token}
     where id in (select id from call_analysis_jobs
                   where status = 'pending' and next_attempt_at <= now()
                   order by next_attempt_at limit ${lease.limit}
                   for update skip locked)
    returning id, call_id, attempts, lease_token`;
}

/** Saves the analysis and closes the job, both only while the lease is ours; false when it was lost. */
export function saveAnalysis(
  sql: Sql,
  job: ClaimedJob,
  analysis: { overview: unknown; agentResult: AgentResult | null | undefined },
): Promise<boolean> {
  return sql.begin(async (tx) => {
    const held = await tx`update call_analysis_jobs
         set status = 'done', finished_at = now(), last_error = null, lease_token = null
       where id = ${job.id} and lease_token = ${job.lease_token} returning id`;
    if (held.length === 0) return false;
    await tx`update call_records set overview = ${json(tx, analysis.overview)}, analysis_status = 'done',
               analysis_error = null, updated_at = now() where id = ${job.call_id}`;
    // A flow's own result is never replaced; an earlier analysis result is (a retried job decides afresh).
    if (analysis.agentResult) {
      await tx`update call_records set agent_result = ${json(tx, analysis.agentResult)}
                where id = ${job.call_id} and (agent_result is null or agent_result->>'resultSource' = 'analysis')`;
    }
    return true;
  }) as Promise<boolean>;
}

/** Closes the job with nothing to save (`done`: nothing to analyse; `skipped`: no model); false when the lease was lost. */
export function closeJob(
  sql: Sql,
  job: ClaimedJob,
  status: 'done' | 'skipped',
  reason: string | null,
): Promise<boolean> {
  return sql.begin(async (tx) => {
    const held = await tx`update call_analysis_jobs
         set status = ${status}, finished_at = now(), last_error = ${reason}, lease_token = null
       where id = ${job.id} and lease_token = ${job.lease_token} returning id`;
    if (held.length === 0) return false;
    await tx`update call_records set analysis_status = ${status}, analysis_error = ${reason}, updated_at = now()
              where id = ${job.call_id}`;
    return true;
  }) as Promise<boolean>;
}

/**
 * A failed attempt: retried after `retryInSeconds`, or failed for good when `final` (the record says so too); false
 * when the lease was lost.
 */
export function failAttempt(
  sql: Sql,
  job: ClaimedJob,
  failure: { message: string; final: boolean; retryInSeconds: number },
): Promise<boolean> {
  return sql.begin(async (tx) => {
    const held = await tx`update call_analysis_jobs
         set status = ${failure.final ? 'failed' : 'pending'}, last_error = ${failure.message}, lease_token = null,
             finished_at = ${failure.final ? new Date() : null},
             next_attempt_at = now() + make_interval(secs => ${failure.retryInSeconds})
       where id = ${job.id} and lease_token = ${job.lease_token} returning id`;
    if (held.length === 0) return false;
    if (failure.final)
      await tx`update call_records set analysis_status = 'failed', analysis_error = ${failure.message}, updated_at = now()
                where id = ${job.call_id}`;
    return true;
  }) as Promise<boolean>;
}

/**
 * Post-call analysis lag (docs/architecture.md §19): jobs due and not leased, and how long the oldest has been due,
 * seconds (0 when none). The predicate is claimDueJobs' own.
 */
export async function analysisJobsLag(sql: Queryable): Promise<{ backlog: number; lagSeconds: number }> {
  const [row] = await sql<{ backlog: number; lag_seconds: number }[]>`
    select count(*)::int as backlog,
           coalesce(extract(epoch from now() - min(next_attempt_at)), 0)::float8 as lag_seconds
      from call_analysis_jobs where status = 'pending' and next_attempt_at <= now()`;
  return { backlog: row!.backlog, lagSeconds: row!.lag_seconds };
}
