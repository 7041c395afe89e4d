/**
 * SQL of the dialler (dialler.ts). Contacts are leased FOR UPDATE SKIP LOCKED and moved PENDING → CALLING in the
 * same statement, with the id their call record will get, so two control planes never take one contact; a
 * contact goes back to PENDING only once its call has ended (settleEndedCalls) or was never recorded.
 *
 * Campaign time (windows, dates, cooldowns) is the dialler's clock, passed in as `now`; lease ages are the
 * database's own clock, since they detect an instance that died in real time.
 */
import type { Queryable } from '../db/database.ts';
import type { CampaignStatus } from './records.ts';

/** Outcome classes of call_records (its generated outcome_class) a contact is tried again after. */
const RETRIED = `(r.outcome_class in ('no_answer', 'busy', 'failed') or r.outcome_class is null)`;

/**
 * Contacts whose call has ended: answered → COMPLETED; no_answer, busy, failed (or no outcome) → PENDING again
 * after the campaign's cooldown while tries remain (1 + retryCount), else FAILED; voicemail, rejected → FAILED.
 * Answers how many were settled.
 */
export async function settleEndedCalls(sql: Queryable, now: Date): Promise<number> {
  const rows = await sql.unsafe(
    `update campaign_contacts cc
        set status = case when r.outcome_class = 'answered' then 'COMPLETED'
                          when ${RETRIED} and cc.attempts <= c.retry_count then 'PENDING'
                          else 'FAILED' end,
            next_attempt_at = case when coalesce(r.outcome_class, '') <> 'answered' and ${RETRIED} and cc.attempts <= c.retry_count
                                   then $1::timestamptz + make_interval(secs => c.cooldown_seconds) end,
            last_outcome = coalesce(r.call_outcome, r.outcome_class, 'failed'),
            failure_reason = case when r.outcome_class = 'answered' then null else r.call_outcome_detail end,
            leased_at = null, leased_by = null, updated_at = now()
       from call_records r, campaigns c
      where cc.status = 'CALLING' and r.id = cc.call_id and r.ended_at is not null and c.id = cc.campaign_id
      returning cc.id`,
    [now],
  );
  return rows.length;
}

/**
 * Contacts CALLING for longer than `lostAfterMs` whose call was never recorded: their instance died between the
 * lease and the record. They go back to PENDING, the try not counted.
 */
export async function releaseLostLeases(sql: Queryable, lostAfterMs: number): Promise<number> {
  const rows = await sql`
    update campaign_contacts cc set status = 'PENDING', attempts = greatest(0, attempts - 1), call_id = null,
           leased_at = null, leased_by = null, updated_at = now()
     where cc.status = 'CALLING' and cc.leased_at < now() - make_interval(secs => ${lostAfterMs / 1000})
       and not exists (select 1 from call_records r where r.id = cc.call_id)
    returning cc.id`;
  return rows.length;
}

/** The dialler's own moves of campaigns at `now`: SCHEDULED whose startDate came → IN_PROGRESS; done → COMPLETED. */
export async function advanceCampaigns(sql: Queryable, now: Date): Promise<{ id: string; status: CampaignStatus }[]> {
  const started = await sql<{ id: string; status: CampaignStatus }[]>`
    update campaigns set status = 'IN_PROGRESS', started_at = coalesce(started_at, ${now}), updated_at = now()
     where status = 'SCHEDULED' and (start_date is null or start_date <= ${now})
    returning id, status`;
  // Over: past endDate, or nothing left to call and nothing being called.
  const completed = await sql<{ id: string; status: CampaignStatus }[]>`
    update campaigns c set status = 'COMPLETED', completed_at = ${now}, updated_at = now()
     where c.status = 'IN_PROGRESS'
       and ((c.end_date is not null and c.end_date < ${now})
            or not exists (select 1 from campaign_contacts cc
                            where cc.campaign_id = c.id and cc.status in ('PENDING', 'CALLING')))
    returning id, status`;
  return [...started, ...completed];
}

export interface RunningCampaign {
  id: string;
  organisation_id: string;
  created_by_id: string | null;
  voice_agent_id: string;
  dialing_number: string | null;
  /** The number its calls go out from: its dialingNumber, else its agent's callingNumber (as placement.ts reads it). */
  calling_number: string | null;
  call_start_time: string;
  call_end_time: string;
  start_date: Date | null;
  end_date: Date | null;
  timezone: string;
  max_call_duration: number;
  inactivity_duration: number;
  /** Contacts due now (PENDING, next try reached). */
  due: number;
}

/** IN_PROGRESS campaigns with contacts due at `now`, oldest started first. */
export async function runningCampaigns(sql: Queryable, now: Date): Promise<RunningCampaign[]> {
  return sql<RunningCampaign[]>`
    select c.id, c.organisation_id, c.created_by_id, c.voice_agent_id, c.dialing_number,
           coalesce(c.dialing_number, a.calling_number) as calling_number, c.call_start_time,
           c.call_end_time, c.start_date, c.end_date, c.timezone, c.max_call_duration, c.inactivity_duration,
           d.due
      from campaigns c
      left join agents a on a.id = c.voice_agent_id
      join lateral (select count(*)::int as due from campaign_contacts cc
                     where cc.campaign_id = c.id and cc.status = 'PENDING'
                       and (cc.next_attempt_at is null or cc.next_attempt_at <= ${now})) d on d.due > 0
     where c.status = 'IN_PROGRESS'
     order by c.started_at nulls last, c.id`;
}

export interface LeasedContact {
  id: string;
  phone: string;
  name: string | null;
  variables: Record<string, unknown>;
  call_id: string;
  attempts: number;
}

/**
 * Leases up to `limit` due contacts of a campaign still IN_PROGRESS: CALLING, one more try, and the id of the call
 * record about to be made. Rows another instance holds are skipped, never waited for.
 */
export async function leaseContacts(
  sql: Queryable,
  campaignId: string,
  now: Date,
  limit: number,
  instance: string,
): Promise<LeasedContact[]> {
  // RETURNING keeps no order: the leased contacts are called in the order they were added.
  const rows = await sql<(LeasedContact & { position: string })[]>`
    update campaign_contacts cc
       set status = 'CALLING', attempts = cc.attempts + 1, leased_at = now(), leased_by = ${instance},
           next_attempt_at = null, updated_at = now(),
           call_id = lpad(to_hex(extract(epoch from now())::bigint), 8, '0') || substr(md5(random()::text || cc.id), 1, 16)
     where cc.id in (select id from campaign_contacts
                      where campaign_id = ${campaignId} and status = 'PENDING'
                        and (next_attempt_at is null or next_attempt_at <= ${now})
                        and exists (select 1 from campaigns where id = ${campaignId} and status = 'IN_PROGRESS')
                      order by next_attempt_at nulls first, position
                      limit ${limit}
                      for update skip locked)
    returning cc.id, cc.phone, cc.name, cc.variables, cc.call_id, cc.attempts, cc.position`;
  return rows.sort((a, b) => Number(a.position) - Number(b.position)).map(({ position: _, ...contact }) => contact);
}

/**
 * A leased contact whose call was not placed and not recorded: PENDING again, the try not counted. Only while the
 * lease is still this one (`callId`): a lease another instance took since is left alone.
 */
export async function releaseContact(sql: Queryable, contactId: string, callId: string): Promise<void> {
  await sql`update campaign_contacts set status = 'PENDING', attempts = greatest(0, attempts - 1), call_id = null,
              leased_at = null, leased_by = null, updated_at = now()
             where id = ${contactId} and status = 'CALLING' and call_id = ${callId}`;
}

/** A leased contact that cannot be called (its number is outside the caller's calling scope, …): FAILED. */
export async function failContact(sql: Queryable, contactId: string, callId: string, reason: string): Promise<void> {
  await sql`update campaign_contacts set status = 'FAILED', failure_reason = ${reason}, last_outcome = 'not_placed',
              leased_at = null, leased_by = null, updated_at = now()
             where id = ${contactId} and status = 'CALLING' and call_id = ${callId}`;
}

export async function callRecorded(sql: Queryable, callId: string): Promise<boolean> {
  const rows = await sql`select 1 from call_records where id = ${callId}`;
  return rows.length > 0;
}

/** Pauses the organisation's running campaigns (or one) and says why on each. */
export async function pauseCampaigns(
  sql: Queryable,
  target: { organisationId: string } | { campaignId: string },
  reason: string,
  now: Date,
): Promise<string[]> {
  const organisationId = 'organisationId' in target ? target.organisationId : null;
  const campaignId = 'campaignId' in target ? target.campaignId : null;
  const rows = await sql<{ id: string }[]>`
    update campaigns set status = 'PAUSED', paused_at = ${now}, paused_reason = ${reason}, updated_at = now()
     where status = 'IN_PROGRESS'
       and (${organisationId}::text is null or organisation_id = ${organisationId})
       and (${campaignId}::text is null or id = ${campaignId})
    returning id`;
  return rows.map((r) => r.id);
}

/** COMPLETED campaigns with follow-up rules whose follow-up is not decided yet. */
export async function campaignsAwaitingFollowUp(sql: Queryable, limit: number): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from campaigns
     where status = 'COMPLETED' and follow_up_rules is not null and follow_up_decided_at is null
     order by completed_at limit ${limit}`;
  return rows.map((r) => r.id);
}

/**
 * The dialler's lag (docs/architecture.md §19): contacts of running campaigns that leaseContacts would take now,
 * and how long the oldest has waited, seconds (0 when none) — since its retry fell due, or since it was added or
 * its campaign started, whichever is later. Time outside the campaign's call window and time waiting for a free
 * line under the plan's concurrentCalls count too: the dialler decides those per pass, not in SQL.
 */
export async function diallerLag(sql: Queryable): Promise<{ backlog: number; lagSeconds: number }> {
  const [row] = await sql<{ backlog: number; lag_seconds: number }[]>`
    select count(*)::int as backlog,
           coalesce(extract(epoch from now() - min(greatest(coalesce(cc.next_attempt_at, cc.created_at),
                                                             coalesce(c.started_at, c.created_at)))), 0)::float8
             as lag_seconds
      from campaign_contacts cc join campaigns c on c.id = cc.campaign_id
     where c.status = 'IN_PROGRESS' and cc.status = 'PENDING'
       and (cc.next_attempt_at is null or cc.next_attempt_at <= now())`;
  return { backlog: row!.backlog, lagSeconds: row!.lag_seconds };
}
