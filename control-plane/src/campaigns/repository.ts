/** SQL of campaigns: the rows with their live counts, their changes, copies and the follow-up buckets. */
import type { Queryable, Sql } from '../db/database.ts';
import type { CampaignRow } from './records.ts';
import type { ResultBucket } from './campaign-rules.ts';

/**
 * A campaign with its agent, its creator, and its counts read live from its contacts (spec: "recomputed live"):
 * one row read per campaign, through the contacts' (campaign_id, status) index.
 */
const SELECT = `
  select c.*, u.name as created_by_name, u.email as created_by_email,
         a.name as agent_name, a.custom_variables as agent_custom_variables,
         a.calling_number as agent_calling_number, a.telephony_provider as agent_telephony_provider,
         coalesce(n.total, 0)::int as total_contacts, coalesce(n.completed, 0)::int as completed_calls,
         coalesce(n.failed, 0)::int as failed_calls, coalesce(n.calling, 0)::int as in_progress_calls,
         exists (select 1 from campaign_uploads up
                  where up.campaign_id = c.id and up.status in ('PENDING', 'PROCESSING')) as busy_upload
    from campaigns c
    left join users u on u.id = c.created_by_id
    left join agents a on a.id = c.voice_agent_id
    left join lateral (
      select count(*) as total,
             count(*) filter (where status = 'COMPLETED') as completed,
             count(*) filter (where status = 'FAILED') as failed,
             count(*) filter (where status = 'CALLING') as calling
        from campaign_contacts cc where cc.campaign_id = c.id) n on true`;

export async function findCampaign(sql: Queryable, id: string): Promise<CampaignRow | undefined> {
  const [row] = await sql.unsafe<CampaignRow[]>(`${SELECT} where c.id = $1`, [id]);
  return row;
}

/** Locks the campaign row for the caller's transaction (changes, deletes, starts serialise on it). */
export async function lockCampaign(tx: Queryable, id: string): Promise<boolean> {
  const rows = await tx`select id from campaigns where id = ${id} for update`;
  return rows.length > 0;
}

export async function listCampaigns(
  sql: Queryable,
  organisationId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: CampaignRow[]; total: number }> {
  const rows = await sql.unsafe<CampaignRow[]>(
    `${SELECT} where c.organisation_id = $1 order by c.created_at desc, c.id desc limit $2 offset $3`,
    [organisationId, page.limit, page.offset],
  );
  const [count] = await sql<{ total: number }[]>`
    select count(*)::int as total from campaigns where organisation_id = ${organisationId}`;
  return { rows, total: count!.total };
}

/** Columns of campaigns a create or change writes (snake_case), JSON values wrapped for jsonb. */
export type CampaignColumns = Partial<Omit<Record<keyof CampaignRow, unknown>, 'id'>>;

const JSON_COLUMNS = new Set(['data_extraction_schema', 'follow_up_rules']);

function columns(sql: Queryable, values: CampaignColumns): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(values)) {
    if (value === undefined) continue;
    out[column] = JSON_COLUMNS.has(column) && value !== null ? (sql as Sql).json(value as never) : value;
  }
  return out;
}

export async function insertCampaign(sql: Queryable, id: string, values: CampaignColumns): Promise<void> {
  await sql`insert into campaigns ${(sql as Sql)({ id, ...columns(sql, values) })}`;
}

export async function updateCampaign(sql: Queryable, id: string, values: CampaignColumns): Promise<void> {
  const set = columns(sql, values);
  if (Object.keys(set).length === 0) return;
  await sql`update campaigns set ${(sql as Sql)(set)}, updated_at = now() where id = ${id}`;
}

/** Removes the campaign with its contacts and uploads (cascade); its call records stay. */
export async function deleteCampaign(sql: Queryable, id: string): Promise<void> {
  await sql`delete from campaigns where id = ${id}`;
}

export async function countContacts(sql: Queryable, campaignId: string): Promise<number> {
  const [row] = await sql<
    { n: number }[]
  >`select count(*)::int as n from campaign_contacts where campaign_id = ${campaignId}`;
  return row!.n;
}

/** Copies the contacts of `fromId` as fresh PENDING entries of `toId`, one per number; answers how many. */
export async function copyContacts(
  sql: Queryable,
  fromId: string,
  toId: string,
  organisationId: string,
): Promise<number> {
  const rows = await sql`
    insert into campaign_contacts (id, campaign_id, organisation_id, phone, name, variables)
    select substr(md5(random()::text || clock_timestamp()::text || cc.id), 1, 24), ${toId}, ${organisationId},
           cc.phone, cc.name, cc.variables
      from (select distinct on (phone) * from campaign_contacts where campaign_id = ${fromId}
             order by phone, position) cc
     order by cc.position
    on conflict (campaign_id, phone) do nothing
    returning id`;
  return rows.length;
}

/**
 * Each contact's call-result bucket: answered (its last call was answered), voicemail, no_answer, and
 * not_reached (busy, rejected, failed, or never called).
 */
const BUCKET = `case when status = 'COMPLETED' then 'answered'
                     when last_outcome = 'voicemail' then 'voicemail'
                     when last_outcome = 'no_answer' then 'no_answer'
                     else 'not_reached' end`;

export async function resultBuckets(sql: Queryable, campaignId: string): Promise<Record<ResultBucket, number>> {
  const rows = await sql.unsafe<{ bucket: ResultBucket; n: number }[]>(
    `select ${BUCKET} as bucket, count(*)::int as n from campaign_contacts where campaign_id = $1 group by 1`,
    [campaignId],
  );
  const counts: Record<ResultBucket, number> = { answered: 0, no_answer: 0, voicemail: 0, not_reached: 0 };
  for (const row of rows) counts[row.bucket] = row.n;
  return counts;
}

/** Copies the contacts of `fromId` whose bucket is one of `buckets` into the follow-up round `toId`. */
export async function copyContactsInBuckets(
  sql: Queryable,
  fromId: string,
  toId: string,
  organisationId: string,
  buckets: readonly ResultBucket[],
): Promise<number> {
  const rows = await sql.unsafe(
    `insert into campaign_contacts (id, campaign_id, organisation_id, phone, name, variables)
     select substr(md5(random()::text || clock_timestamp()::text || id), 1, 24), $2, $3, phone, name, variables
       from campaign_contacts where campaign_id = $1 and status in ('COMPLETED', 'FAILED')
        and (${BUCKET}) = any($4::text[])
      order by position
     on conflict (campaign_id, phone) do nothing
     returning id`,
    [fromId, toId, organisationId, buckets as string[]],
  );
  return rows.length;
}

export async function followUpRounds(
  sql: Queryable,
  campaignId: string,
): Promise<{ id: string; status: string; follow_up_round: number }[]> {
  return sql<{ id: string; status: string; follow_up_round: number }[]>`
    select id, status, follow_up_round from campaigns where parent_campaign_id = ${campaignId} order by created_at`;
}

/** An active OUTBOUND SIP configuration of the organisation (the agent's own first), or null. */
export async function activeOutboundSipConfiguration(
  sql: Queryable,
  organisationId: string,
  agentId: string,
): Promise<string | null> {
  const [row] = await sql<{ id: string }[]>`
    select id from sip_configurations
     where organisation_id = ${organisationId} and type = 'OUTBOUND' and is_active
     order by (agent_id = ${agentId}) desc nulls last, created_at
     limit 1`;
  return row?.id ?? null;
}

/** Whether `id` is one of the organisation's active OUTBOUND SIP configurations (a follow-up rule may name one). */
export async function isOutboundSipConfiguration(sql: Queryable, organisationId: string, id: string): Promise<boolean> {
  const rows = await sql`select 1 from sip_configurations
    where id = ${id} and organisation_id = ${organisationId} and type = 'OUTBOUND' and is_active`;
  return rows.length > 0;
}
