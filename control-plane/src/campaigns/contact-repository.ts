/** SQL of a campaign's contacts: adding them (duplicates skipped), listing them with their call status, counts. */
import type { Queryable, Sql } from '../db/database.ts';
import type { ContactStatus } from './records.ts';

export interface NewContact {
  id: string;
  phone: string;
  name: string | null;
  variables: Record<string, unknown>;
}

/** Inserts the contacts, skipping numbers the campaign already has; answers how many were added. */
export async function insertContacts(
  sql: Queryable,
  campaignId: string,
  organisationId: string,
  contacts: readonly NewContact[],
): Promise<number> {
  if (contacts.length === 0) return 0;
  const rows = await sql`
    insert into campaign_contacts (id, campaign_id, organisation_id, phone, name, variables)
    select e.v ->> 'id', ${campaignId}, ${organisationId}, e.v ->> 'phone', e.v ->> 'name', e.v -> 'variables'
      from jsonb_array_elements(${(sql as Sql).json(contacts as never)}::jsonb) with ordinality as e(v, n)
     order by e.n
    on conflict (campaign_id, phone) do nothing
    returning id`;
  return rows.length;
}

export interface ContactRow {
  id: string;
  phone: string;
  name: string | null;
  variables: Record<string, unknown>;
  status: ContactStatus;
  attempts: number;
  next_attempt_at: Date | null;
  call_id: string | null;
  last_outcome: string | null;
  failure_reason: string | null;
  extracted_data: Record<string, unknown> | null;
  created_at: Date;
  updated_at: Date;
  call_status: string | null;
  call_duration: number | null;
  room_name: string | null;
}

export async function listContacts(
  sql: Queryable,
  campaignId: string,
  filter: { status?: ContactStatus; limit: number; offset: number },
): Promise<{ rows: ContactRow[]; total: number }> {
  const status = filter.status ?? null;
  const rows = await sql<ContactRow[]>`
    select cc.id, cc.phone, cc.name, cc.variables, cc.status, cc.attempts, cc.next_attempt_at, cc.call_id,
           cc.last_outcome, cc.failure_reason, cc.extracted_data, cc.created_at, cc.updated_at,
           r.call_status, r.call_duration, r.room_name
      from campaign_contacts cc left join call_records r on r.id = cc.call_id
     where cc.campaign_id = ${campaignId} and (${status}::text is null or cc.status = ${status})
     order by cc.position
     limit ${filter.limit} offset ${filter.offset}`;
  const [count] = await sql<{ total: number }[]>`
    select count(*)::int as total from campaign_contacts
     where campaign_id = ${campaignId} and (${status}::text is null or status = ${status})`;
  return { rows, total: count!.total };
}

export interface CampaignStatsRow {
  total: number;
  pending: number;
  calling: number;
  completed: number;
  failed: number;
  attempts: number;
  calls_placed: number;
  calls_answered: number;
  answered_seconds: number;
  outcomes: Record<string, number> | null;
}

export async function campaignStats(sql: Queryable, campaignId: string): Promise<CampaignStatsRow> {
  const [row] = await sql<CampaignStatsRow[]>`
    select count(*)::int as total,
           count(*) filter (where status = 'PENDING')::int as pending,
           count(*) filter (where status = 'CALLING')::int as calling,
           count(*) filter (where status = 'COMPLETED')::int as completed,
           count(*) filter (where status = 'FAILED')::int as failed,
           coalesce(sum(attempts), 0)::int as attempts,
           (select count(*)::int from call_records where campaign_id = ${campaignId}) as calls_placed,
           (select count(*)::int from call_records where campaign_id = ${campaignId} and answered_at is not null) as calls_answered,
           (select coalesce(sum(call_duration), 0)::bigint / 1000 from call_records
             where campaign_id = ${campaignId} and answered_at is not null)::int as answered_seconds,
           (select jsonb_object_agg(last_outcome, n) from (
              select last_outcome, count(*)::int as n from campaign_contacts
               where campaign_id = ${campaignId} and last_outcome is not null group by last_outcome) o) as outcomes
      from campaign_contacts where campaign_id = ${campaignId}`;
  return row!;
}
