/**
 * Call records (spec document 2, /voice-sessions): create a record, read it, end it, list and count them. Placing
 * calls is not here: call placement creates its records through src/calls/call-repository.ts too.
 */
import type { Bus } from '@parley/engine/bus';
import { callCodecs, subjects } from '@parley/engine/protocol';
import type { Principal } from '../../auth/principal.ts';
import type { Sql } from '../../db/database.ts';
import { isPersonOf } from '../../accounts/repository.ts';
import { agentType as findAgentType } from '../../agents/repository.ts';
import { badField, notFound } from '../../errors.ts';
import { createCall, findCallById, findCallByRoom, finishCall } from '../repository/call-repository.ts';
import { hangUpSipLeg } from '../launch/sip-calls.ts';
import { meterCall } from '../../billing/metering.ts';
import { countCalls, findCallRelations, listCalls, type CallStats } from '../repository/session-repository.ts';
import {
  callRecord,
  capitaliseName,
  type CallRecord,
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
      const agentType = await findAgentType(tx, organisationId, body.agentId);
      if (!agentType) throw notFound('Agent');
      const callType: CallType = body.callType ?? (agentType === 'CHAT' ? 'chat' : body.phoneNumber ? 'sip' : 'web');
      if ((agentType === 'CHAT') !== (callType === 'chat')) {
        throw badField(
          'callType',
          agentType === 'CHAT'
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
    const related = await findCallRelations(this.#sql, row);
    return {
      ...callRecord(row),
      organisation: { id: related.org_id, name: related.org_name, type: related.org_type },
      agent: {
        id: related.agent_id,
        name: related.agent_name,
        language: related.agent_language,
        gender: related.agent_gender,
      },
      createdBy: related.user_id ? { id: related.user_id, name: related.user_name!, email: related.user_email! } : null,
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
      const done = await finishCall(tx, row.id, { status: 'COMPLETED', reason: body.reason ?? 'ended_by_api' });
      // An answered call ended here is billed now (the engine's own `ended` then finds it billed).
      if (done) await meterCall(tx, row.id);
      return { row, done };
    });
    if (finished.done?.wasLive) {
      this.#bus.publish(
        subjects.callControl(finished.row.id),
        callCodecs.control.encode({ type: 'end', reason: body.reason ?? 'ended_by_api' }),
      );
    }
    // A SIP leg may ring or talk with no session to end it (the engine's pending call waits for media): the gateway hangs it up.
    if (finished.done?.row.sip_configuration_id)
      hangUpSipLeg(this.#bus, finished.row.id, body.reason ?? 'ended_by_api');
    return { call: callRecord(finished.done?.row ?? finished.row), ended: finished.done !== undefined };
  }

  async list(principal: Principal, query: ListCallsQuery): Promise<CallRecord[]> {
    const rows = await listCalls(this.#sql, principal.organisationId, {
      callType: query.callType,
      agentId: query.agentId,
      limit: query.limit ?? DEFAULT_LIST_LIMIT,
      offset: query.offset ?? 0,
    });
    return rows.map(callRecord);
  }

  async stats(principal: Principal, query: StatsQuery): Promise<CallStats> {
    const exclude = query.callType ? null : (query.excludeCallType ?? null);
    return countCalls(this.#sql, principal.organisationId, {
      agentId: query.agentId,
      callType: query.callType,
      excludeCallType: exclude ?? undefined,
    });
  }
}
