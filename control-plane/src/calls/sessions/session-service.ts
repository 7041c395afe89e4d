/**
 * Call records (spec document 2, /voice-sessions): create a record, read it, end it, list and count them. Placing
 * calls is not here: call placement creates its records through src/calls/call-repository.ts too.
 */
import type { Bus } from '@parley/engine/bus';
import { callCodecs, subjects } from '@parley/engine/protocol';
import type { Principal } from '../../auth/principal.ts';
import type { Queryable, Sql } from '../../db/database.ts';
import { badField, notFound } from '../../errors.ts';
import { createCall, findCallById, findCallByRoom, finishCall } from '../repository/call-repository.ts';
import {
  callRecord,
  capitaliseName,
  NOT_ANSWERED_CLASSES,
  UNPLACED_STATUSES,
  type CallRecord,
  type CallRow,
  type CallSource,
  type CallType,
} from '../repository/call-records.ts';
import {
  DEFAULT_LIST_LIMIT,
  type CreateCallBody,
  type EndCallBody,
  type ListCallsQuery,
  type StatsQuery,
} from './types.ts';

export interface CallStats {
  total: number;
  answered: number;
  notAnswered: number;
  failed: number;
}

export class VoiceSessionService {
  readonly #sql: Sql;
  readonly #bus: Bus;

  constructor(sql: Sql, bus: Bus) {
    this.#sql = sql;
    this.#bus = bus;
  }

  async create(principal: Principal, body: CreateCallBody): Promise<CallRecord> {
    const organisationId = principal.organisationId;
    const id = await this.#sql.begin(async (tx) => {
      const [agent] = await tx<{ agent_type: 'VOICE' | 'CHAT' }[]>`select agent_type from agents
        where id = ${body.agentId} and organisation_id = ${organisationId} and deleted_at is null`;
      if (!agent) throw notFound('Agent');
      const callType: CallType =
        body.callType ?? (agent.agent_type === 'CHAT' ? 'chat' : body.phoneNumber ? 'sip' : 'web');
      if ((agent.agent_type === 'CHAT') !== (callType === 'chat')) {
        throw badField(
          'callType',
          agent.agent_type === 'CHAT'
            ? `must be chat: the agent is a CHAT agent`
            : `cannot be chat: the agent is a VOICE agent (use sip, web or websocket)`,
        );
      }
      const createdById = body.createdById ?? principal.userId;
      if (body.createdById && !(await isPersonOf(tx, organisationId, body.createdById))) {
        throw badField('createdById', 'is not a member of this organisation');
      }
      const { flowResult: _ignored, ...metaData } = body.metaData ?? {};
      const direction = body.callDirection ?? 'OUTBOUND';
      const source: CallSource = body.campaignId ? 'campaign' : direction === 'INBOUND' ? 'inbound' : 'manual';
      return createCall(tx, {
        organisationId,
        agentId: body.agentId,
        roomName: body.roomName,
        participantName: capitaliseName(body.participantName),
        phoneNumber: body.phoneNumber ?? null,
        createdById,
        callType,
        callDirection: direction,
        campaignId: body.campaignId ?? null,
        customVariables: body.customVariables ?? {},
        metaData,
        source,
        useCase: body.useCase ?? null,
      });
    });
    return this.get(principal, id);
  }

  /** The record with its organisation, agent and creator (spec: the single-call read by id). */
  async get(principal: Principal, id: string): Promise<CallRecord> {
    const row = await findCallById(this.#sql, principal.organisationId, id);
    if (!row) throw notFound('Call');
    const [related] = await this.#sql<Related[]>`
      select o.id as org_id, o.name as org_name, o.type as org_type, a.id as agent_id, a.name as agent_name, a.language as agent_language,
             a.gender as agent_gender, u.id as user_id, u.name as user_name, u.email as user_email
        from organisations o join agents a on a.id = ${row.agent_id} left join users u on u.id = ${row.created_by_id}
       where o.id = ${row.organisation_id}`;
    return {
      ...callRecord(row),
      organisation: { id: related!.org_id, name: related!.org_name, type: related!.org_type },
      agent: {
        id: related!.agent_id,
        name: related!.agent_name,
        language: related!.agent_language,
        gender: related!.agent_gender,
      },
      createdBy: related!.user_id
        ? { id: related!.user_id, name: related!.user_name!, email: related!.user_email! }
        : null,
    };
  }

  async getByRoom(principal: Principal, roomName: string): Promise<CallRecord> {
    const row = await findCallByRoom(this.#sql, principal.organisationId, roomName);
    if (!row) throw notFound('Call');
    return callRecord(row);
  }

  /**
   * COMPLETED now, unless it has already ended. An engine still running the call is told to hang up (after commit);
   * its own `ended` event then refines the outcome and duration.
   */
  async end(principal: Principal, roomName: string, body: EndCallBody): Promise<{ call: CallRecord; ended: boolean }> {
    const finished = await this.#sql.begin(async (tx) => {
      const row = await findCallByRoom(tx, principal.organisationId, roomName);
      if (!row) throw notFound('Call');
      return {
        row,
        done: await finishCall(tx, row.id, { status: 'COMPLETED', reason: body.reason ?? 'ended_by_api' }),
      };
    });
    if (finished.done?.wasLive) {
      this.#bus.publish(
        subjects.callControl(finished.row.id),
        callCodecs.control.encode({ type: 'end', reason: body.reason ?? 'ended_by_api' }),
      );
    }
    return { call: callRecord(finished.done?.row ?? finished.row), ended: finished.done !== undefined };
  }

  async list(principal: Principal, query: ListCallsQuery): Promise<CallRecord[]> {
    const rows = await this.#sql<CallRow[]>`
      select * from call_records
       where organisation_id = ${principal.organisationId}
         and (call_status is null or call_status <> all(${UNPLACED_STATUSES as string[]}))
         and (${query.callType ?? null}::text is null or call_type = ${query.callType ?? null})
         and (${query.agentId ?? null}::text is null or agent_id = ${query.agentId ?? null})
       order by created_at desc, id desc
       limit ${query.limit ?? DEFAULT_LIST_LIMIT} offset ${query.offset ?? 0}`;
    return rows.map(callRecord);
  }

  async stats(principal: Principal, query: StatsQuery): Promise<CallStats> {
    const exclude = query.callType ? null : (query.excludeCallType ?? null);
    const [counts] = await this.#sql<CallStats[]>`
      select count(*)::int as total,
             count(*) filter (where outcome_class = 'answered')::int as answered,
             count(*) filter (where outcome_class = any(${NOT_ANSWERED_CLASSES as string[]}))::int as "notAnswered",
             count(*) filter (where outcome_class = 'failed')::int as failed
        from call_records
       where organisation_id = ${principal.organisationId}
         and (call_status is null or call_status <> all(${UNPLACED_STATUSES as string[]}))
         and (${query.agentId ?? null}::text is null or agent_id = ${query.agentId ?? null})
         and (${query.callType ?? null}::text is null or call_type = ${query.callType ?? null})
         and (${exclude}::text is null or call_type <> ${exclude})`;
    return counts!;
  }
}

interface Related {
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

/** The organisation's owner or one of its members. */
async function isPersonOf(sql: Queryable, organisationId: string, userId: string): Promise<boolean> {
  const rows = await sql`select 1 from users u where u.id = ${userId} and u.deleted_at is null
    and (exists (select 1 from organisations o where o.id = ${organisationId} and o.owner_id = u.id)
         or exists (select 1 from members m where m.organisation_id = ${organisationId} and m.user_id = u.id))`;
  return rows.length > 0;
}
