/**
 * The call record as the /voice-sessions routes read it: a record with the names of what it belongs to, pages of
 * records, and their counts. Calls not placed yet (SCHEDULED, QUEUED, CANCELLED) are left out of lists and counts.
 */
import type { Queryable } from '../../db/database.ts';
import { NOT_ANSWERED_CLASSES, UNPLACED_STATUSES, type CallRow } from './call-records.ts';

export interface CallStats {
  total: number;
  answered: number;
  notAnswered: number;
  failed: number;
}

export interface CallRelations {
  org_id: string;
  org_name: string;
  org_type: string;
  agent_id: string;
  agent_name: string;
  agent_language: string;
  agent_gender: string | null;
  user_id: string | null;
  user_name: string | null;
  user_email: string | null;
}

/** The names of the organisation, agent and creator of a call. */
export async function findCallRelations(sql: Queryable, row: CallRow): Promise<CallRelations> {
  const [related] = await sql<CallRelations[]>`
    select o.id as org_id, o.name as org_name, o.type as org_type, a.id as agent_id, a.name as agent_name, a.language as agent_language,
           a.gender as agent_gender, u.id as user_id, u.name as user_name, u.email as user_email
      from organisations o join agents a on a.id = ${row.agent_id} left join users u on u.id = ${row.created_by_id}
     where o.id = ${row.organisation_id}`;
  return related!;
}

export interface CallListFilter {
  callType?: string;
  agentId?: string;
  limit: number;
  offset: number;
}

/** A page of the organisation's placed calls, newest first. */
export function listCalls(sql: Queryable, organisationId: string, query: CallListFilter): Promise<CallRow[]> {
  return sql<CallRow[]>`
    select * from call_records
     where organisation_id = ${organisationId}
       and (call_status is null or call_status <> all(${UNPLACED_STATUSES as string[]}))
       and (${query.callType ?? null}::text is null or call_type = ${query.callType ?? null})
       and (${query.agentId ?? null}::text is null or agent_id = ${query.agentId ?? null})
     order by created_at desc, id desc
     limit ${query.limit} offset ${query.offset}`;
}

/** How the organisation's placed calls ended, counted. */
export async function countCalls(
  sql: Queryable,
  organisationId: string,
  query: { agentId?: string; callType?: string; excludeCallType?: string },
): Promise<CallStats> {
  const [counts] = await sql<CallStats[]>`
    select count(*)::int as total,
           count(*) filter (where outcome_class = 'answered')::int as answered,
           count(*) filter (where outcome_class = any(${NOT_ANSWERED_CLASSES as string[]}))::int as "notAnswered",
           count(*) filter (where outcome_class = 'failed')::int as failed
      from call_records
     where organisation_id = ${organisationId}
       and (call_status is null or call_status <> all(${UNPLACED_STATUSES as string[]}))
       and (${query.agentId ?? null}::text is null or agent_id = ${query.agentId ?? null})
       and (${query.callType ?? null}::text is null or call_type = ${query.callType ?? null})
       and (${query.excludeCallType ?? null}::text is null or call_type <> ${query.excludeCallType ?? null})`;
  return counts!;
}
