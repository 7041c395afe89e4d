/**
 * Placing phone calls (DESIGN.md §3 steps 1–2): POST /voice/session and the carrier's webhooks meet here. A call is
 * checked, recorded (call-repository.ts), handed to an engine over the bus (`v1.engine.dispatch`), and then placed
 * at the carrier, whose answer URL returns the XML that opens the media stream to that engine's session.
 *
 * Only carrier-b (Twilio Programmable Voice + Media Streams) is placed so far (placement-carrier-b.ts). The engine's
 * stream URL (it holds the one-use stream token) is kept in the record's metaData until the carrier's answer request
 * has taken it, then removed.
 *
 * Not here: the scheduler that places SCHEDULED calls when their callTime comes (they are only recorded), web and
 * websocket calls, and carriers other than carrier-b.
 */
import { mediaStreamUrl } from '@parley/engine';
import type { Bus } from '@parley/engine/bus';
import { isBusError } from '@parley/engine/bus';
import { callCodecs, subjects, type AgentSnapshot, type CallSpec } from '@parley/engine/protocol';
import type { Queryable, Sql } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import { ApiError, badField, notFound } from '../errors.ts';
import type { Principal } from '../auth/principal.ts';
import { findAgent } from '../routes/v1/agents/repository.ts';
import { agentRecord } from '../routes/v1/agents/records.ts';
import { toAgentSnapshot } from '../routes/v1/agents/snapshot.ts';
import { prepareTools, webhookToolSpecs } from '../routes/v1/agents/function-tools.ts';
import type { FunctionToolsInput } from '../routes/v1/agents/field-schemas.ts';
import type { KeyRing } from '../secrets/key-ring.ts';
import { IntegrationStore } from '../telephony/integrations.ts';
import { assertFunded } from '../telephony/wallet.ts';
import { CARRIER_API_DEFAULTS, CarrierError, carrierApiUrlVariable, type Carrier } from '../integrations/carriers/carrier.ts';
import { createCall, finishCall, markAnswered, markDispatched } from './call-repository.ts';
import type { CallRow } from './call-records.ts';
import { carrierBAnswer, createCarrierBCall, hangupXml, refusalXml, type CarrierBAccount } from './placement-carrier-b.ts';

/** Same agent, number and key owner within this window is the same request sent twice (spec: 409). */
export const DUPLICATE_WINDOW_MS = 5_000;
/** How long an engine has to accept a dispatch, ms. */
export const DISPATCH_TIMEOUT_MS = 10_000;
/** The engine's limits for a phone call unless master_settings say otherwise. */
export const DEFAULT_MAX_DURATION_MS = 30 * 60_000;
export const DEFAULT_INACTIVITY_MS = 30_000;
/** metaData keys placement writes. */
export const META_STREAM_URL = 'mediaStreamUrl';
export const META_CARRIER_CALL = 'carrierCallSid';

export interface PlacementOptions {
  sql: Sql;
  bus: Bus;
  /** PARLEY_PUBLIC_URL: where carriers reach the webhooks. */
  publicUrl: string;
  carrierApiUrls?: Partial<Record<Carrier, string | undefined>>;
  keyRing: KeyRing | undefined;
  log?: (level: 'info' | 'warn' | 'error', message: string, detail: object) => void;
}

export interface PlaceCallRequest {
  agentId: string;
  participantName: string;
  callType: 'sip' | 'web' | 'websocket';
  participantNumber?: string;
  useCase?: string;
  customVariables?: Record<string, unknown>;
  callingNumber?: string;
  callTime?: string;
  master_settings?: Record<string, unknown>;
  functionTools?: FunctionToolsInput;
}

export interface PlacedCall {
  success: true;
  roomName: string;
  sessionId: string;
  callType: 'sip';
  status: 'initiated' | 'scheduled';
}

interface NumberRow {
  phone_number: string;
  provider: Carrier;
  agent_id: string | null;
  organisation_id: string;
}

const E164 = /^\+[1-9]\d{6,14}$/;

export class CallPlacement {
  readonly #o: PlacementOptions;
  readonly integrations: IntegrationStore;

  constructor(options: PlacementOptions) {
    this.#o = options;
    this.integrations = new IntegrationStore(options.keyRing);
  }

  get publicUrl(): string {
    return this.#o.publicUrl.replace(/\/+$/, '');
  }

  webhookUrl(kind: 'answer' | 'status', callId: string): string {
    return `${this.publicUrl}/webhooks/carrier-b/${kind}/${callId}`;
  }

  /** POST /voice/session. */
  async placeOutbound(principal: Principal, body: PlaceCallRequest): Promise<PlacedCall> {
    const { sql } = this.#o;
    const organisationId = principal.organisationId;
    const row = await findAgent(sql, organisationId, body.agentId);
    if (!row) throw notFound('Agent');
    const agent = agentRecord(row);
    if (!agent.isActive) throw new ApiError('invalid_state', 'The agent is not active: activate it before placing calls');
    if (agent.agentType !== 'VOICE') throw new ApiError('invalid_state', `The agent is a ${agent.agentType} agent: phone calls need a VOICE agent`);
    if (body.callType !== 'sip') throw new ApiError('invalid_state', `callType "${body.callType}" is not supported yet: use callType "sip"`);
    if (!body.participantNumber) throw badField('body.participantNumber', 'is required when callType is sip');
    if (!E164.test(body.participantNumber)) throw badField('body.participantNumber', 'must be an E.164 number such as +14155550100');
    let scheduledAt: Date | undefined;
    if (body.callTime !== undefined) {
      scheduledAt = new Date(body.callTime);
      if (Number.isNaN(scheduledAt.getTime())) throw badField('body.callTime', 'must be an ISO 8601 date-time');
      if (scheduledAt.getTime() <= Date.now()) throw badField('body.callTime', 'must be in the future');
    }
    const callingNumber = body.callingNumber ?? agent.callingNumber;
    if (!callingNumber) throw new ApiError('invalid_state', 'No calling number: send callingNumber or give the agent a callingNumber');
    const [number] = await sql<NumberRow[]>`select phone_number, provider, agent_id, organisation_id from phone_numbers
      where organisation_id = ${organisationId} and phone_number = ${callingNumber} and status = 'ACTIVE' and deleted_at is null`;
    if (!number) throw new ApiError('invalid_state', `callingNumber ${callingNumber} is not one of the organisation's active numbers`);
    if (number.provider !== 'carrier-b') throw new ApiError('invalid_state', `Calls from ${number.provider} numbers are not supported yet: use a carrier-b number`);
    await assertFunded(sql, organisationId);
    // Checked before anything is recorded: a call that cannot be placed leaves no record behind.
    const account = scheduledAt ? undefined : await this.#carrierBAccount(sql, organisationId);
    const tools = body.functionTools === undefined ? undefined : webhookToolSpecs(prepareTools(body.functionTools, this.#o.keyRing, organisationId), this.#o.keyRing, organisationId);
    const snapshot: AgentSnapshot = { ...toAgentSnapshot(agent, this.#o.keyRing), ...(tools && { functionTools: tools }) };

    const customVariables = body.customVariables ?? {};
    const campaignId = typeof customVariables.campaignId === 'string' && /^[0-9a-f]{24}$/.test(customVariables.campaignId) ? customVariables.campaignId : null;
    const id = newId();
    const limits = callLimits(body.master_settings);
    await sql.begin(async (tx) => {
      // One request at a time per agent, number and key owner: the duplicate check and the insert cannot interleave.
      await tx`select pg_advisory_xact_lock(hashtext(${`placement:${agent.id}:${body.participantNumber}:${principal.userId}`}))`;
      const [recent] = await tx`select id from call_records
        where agent_id = ${agent.id} and phone_number = ${body.participantNumber!} and created_by_id = ${principal.userId}
          and created_at > now() - make_interval(secs => ${DUPLICATE_WINDOW_MS / 1000})
          and (call_status is null or call_status <> 'FAILED')
        limit 1`;
      if (recent) throw new ApiError('conflict', 'The same call (agent, participantNumber and key owner) was requested within the last 5 seconds');
      await createCall(tx, {
        id,
        organisationId,
        agentId: agent.id,
        roomName: roomNameFor(id),
        participantName: body.participantName,
        phoneNumber: body.participantNumber,
        createdById: principal.userId,
        callType: 'sip',
        callDirection: 'OUTBOUND',
        campaignId,
        customVariables,
        metaData: { carrier: 'carrier-b', ...(body.master_settings && { masterSettings: body.master_settings }), ...(tools && { functionToolsOverridden: true }) },
        callingNumber,
        scheduledTime: scheduledAt ?? null,
        scheduledStatus: scheduledAt ? 'PENDING' : null,
        status: scheduledAt ? 'SCHEDULED' : null,
        source: campaignId ? 'campaign' : 'api',
        useCase: body.useCase ?? null,
        maxDurationMs: limits.maxDurationMs,
      });
    });
    if (scheduledAt) return { success: true, roomName: roomNameFor(id), sessionId: id, callType: 'sip', status: 'scheduled' };

    const spec: CallSpec = {
      callId: id,
      organisationId,
      agent: snapshot,
      direction: 'OUTBOUND',
      participant: { name: body.participantName, phoneNumber: body.participantNumber },
      variables: { ...agent.customVariables, ...customVariables, participantName: body.participantName, phoneNumber: body.participantNumber },
      limits,
    };
    const streamUrl = await this.#dispatch(spec);
    await this.#mergeMeta(sql, id, { [META_STREAM_URL]: streamUrl });
    let sid: string;
    try {
      sid = await createCarrierBCall(account!, {
        to: body.participantNumber,
        from: callingNumber,
        url: this.webhookUrl('answer', id),
        statusCallback: this.webhookUrl('status', id),
      });
    } catch (error) {
      const message = error instanceof CarrierError ? error.message : String(error);
      await finishCall(sql, id, { status: 'FAILED', outcome: 'failed', outcomeDetail: message, reason: 'carrier_rejected', analyse: false });
      this.endOnEngine(id, 'carrier_rejected');
      this.#o.log?.('warn', 'carrier-b refused to place the call', { callId: id, error: message });
      throw new ApiError('upstream_failed', `carrier-b did not place the call: ${message}`, { cause: error });
    }
    await this.#mergeMeta(sql, id, { [META_CARRIER_CALL]: sid });
    return { success: true, roomName: roomNameFor(id), sessionId: id, callType: 'sip', status: 'initiated' };
  }

  /** Tells the engine running the call to hang up (a no-op when none runs it). */
  endOnEngine(callId: string, reason: string): void {
    this.#o.bus.publish(subjects.callControl(callId), callCodecs.control.encode({ type: 'end', reason }));
  }

  /** The record of a call by id, whatever its organisation (webhooks name calls by id only). */
  async callById(callId: string): Promise<CallRow | undefined> {
    if (!/^[0-9a-f]{24}$/.test(callId)) return undefined;
    const [row] = await this.#o.sql<CallRow[]>`select * from call_records where id = ${callId}`;
    return row;
  }

  /** The organisation's carrier-b auth token, for checking its webhooks' signatures. */
  async carrierBAuthToken(organisationId: string): Promise<string | undefined> {
    const integration = await this.integrations.active(this.#o.sql, organisationId, 'carrier-b');
    if (!integration) return undefined;
    return this.integrations.credentials(integration).auth_token;
  }

  /**
   * The answer XML of an outbound call: the stream URL kept at dispatch, taken once (removed from metaData). A call
   * that has ended, or whose stream was already taken, is hung up.
   */
  async answerOutbound(call: CallRow): Promise<string> {
    const [taken] = await this.#o.sql<{ url: string }[]>`
      with kept as (select meta_data ->> ${META_STREAM_URL} as url from call_records
                     where id = ${call.id} and ended_at is null and meta_data ? ${META_STREAM_URL} for update)
      update call_records c set meta_data = c.meta_data - ${META_STREAM_URL}, updated_at = now()
        from kept where c.id = ${call.id}
      returning kept.url`;
    const url = taken?.url;
    if (!url) return hangupXml();
    return carrierBAnswer(url, call.id);
  }

  /**
   * The organisation whose connected carrier-b account is `accountSid` (an inbound call's AccountSid), with the auth
   * token its webhooks are signed with; `undefined` when none has it (the signature cannot be checked). Should two
   * organisations have connected the same account, the one connected last takes its calls.
   */
  async inboundIntegration(accountSid: string): Promise<{ organisationId: string; authToken: string } | undefined> {
    const [row] = await this.#o.sql<{ organisation_id: string }[]>`select organisation_id from telephony_integrations
      where provider = 'carrier-b' and account_ref = ${accountSid} and is_active order by updated_at desc limit 1`;
    if (!row) return undefined;
    const authToken = await this.carrierBAuthToken(row.organisation_id);
    return authToken ? { organisationId: row.organisation_id, authToken } : undefined;
  }

  /** Places an inbound call on an engine and answers the TwiML that streams it there (or a polite refusal). */
  async answerInbound(organisationId: string, params: { from: string; to: string; callSid: string }): Promise<string> {
    const { sql } = this.#o;
    const [number] = await sql<NumberRow[]>`select phone_number, provider, agent_id, organisation_id from phone_numbers
      where organisation_id = ${organisationId} and phone_number = ${params.to} and provider = 'carrier-b'
        and status = 'ACTIVE' and deleted_at is null`;
    if (!number?.agent_id) return refusalXml('Sorry, this number is not taking calls at the moment. Goodbye.');
    const row = await findAgent(sql, organisationId, number.agent_id);
    const agent = row && agentRecord(row);
    if (!agent || !agent.isActive || agent.agentType !== 'VOICE') return refusalXml('Sorry, no one is available to take your call right now. Goodbye.');
    try {
      await assertFunded(sql, organisationId);
    } catch {
      return refusalXml('Sorry, this line cannot take calls at the moment. Goodbye.');
    }
    const id = newId();
    const limits = callLimits(undefined);
    await createCall(sql, {
      id,
      organisationId,
      agentId: agent.id,
      roomName: roomNameFor(id),
      participantName: params.from,
      phoneNumber: params.from,
      callType: 'sip',
      callDirection: 'INBOUND',
      metaData: { carrier: 'carrier-b', [META_CARRIER_CALL]: params.callSid },
      callingNumber: params.to,
      source: 'inbound',
      maxDurationMs: limits.maxDurationMs,
    });
    const spec: CallSpec = {
      callId: id,
      organisationId,
      agent: toAgentSnapshot(agent, this.#o.keyRing),
      direction: 'INBOUND',
      participant: { phoneNumber: params.from },
      variables: { ...agent.customVariables, phoneNumber: params.from },
      limits,
    };
    let streamUrl: string;
    try {
      streamUrl = await this.#dispatch(spec);
    } catch {
      return refusalXml('Sorry, we cannot take your call right now. Please try again later. Goodbye.');
    }
    // Answered at once: the stream URL is never kept.
    return carrierBAnswer(streamUrl, id);
  }

  /** A carrier-b status callback of an outbound call. */
  async carrierBStatus(call: CallRow, params: Record<string, string>): Promise<void> {
    const status = params.CallStatus;
    const { sql } = this.#o;
    if (status === 'in-progress' || status === 'answered') {
      await markAnswered(sql, call.id);
      return;
    }
    const end = CARRIER_B_ENDS[status ?? ''];
    if (!end) return;
    const [answered] = await sql<{ answered_at: Date | null }[]>`select answered_at from call_records where id = ${call.id}`;
    const outcome = status === 'completed' ? (answered?.answered_at ? 'completed' : 'no_answer') : end.outcome;
    const finished = await finishCall(sql, call.id, {
      status: end.status,
      outcome,
      reason: `carrier_${status!.replace(/-/g, '_')}`,
      outcomeDetail: params.SipResponseCode ? `SIP ${params.SipResponseCode}` : null,
      analyse: outcome === 'completed',
    });
    // The carrier ended the call: the engine's session (if any still runs) hangs up too.
    if (finished?.wasLive) this.endOnEngine(call.id, status === 'completed' ? 'caller_hangup' : `carrier_${status}`);
  }

  async #carrierBAccount(sql: Queryable, organisationId: string): Promise<CarrierBAccount> {
    const integration = await this.integrations.active(sql, organisationId, 'carrier-b');
    if (!integration) throw new ApiError('invalid_state', 'No carrier-b account is connected: connect one under /telephony/carrier-b/connect');
    const open = this.integrations.credentials(integration);
    const authToken = open.auth_token;
    if (!authToken) throw new ApiError('invalid_state', 'The stored carrier-b credentials are incomplete: connect the account again');
    const urls = this.#o.carrierApiUrls;
    const baseUrl = urls ? urls['carrier-b'] : CARRIER_API_DEFAULTS['carrier-b'];
    if (!baseUrl) throw new ApiError('unavailable', `carrier-b is not configured on this server (${carrierApiUrlVariable('carrier-b')})`);
    return { baseUrl: baseUrl.replace(/\/+$/, ''), accountSid: open.account_sid ?? integration.accountRef, authToken };
  }

  /**
   * Hands the call to an engine; answers its stream URL for carrier-b and marks the record INITIATED. When no engine
   * takes it, the record is finished FAILED and 503 thrown.
   */
  async #dispatch(spec: CallSpec): Promise<string> {
    const { sql, bus } = this.#o;
    const fail = async (detail: string, cause?: unknown): Promise<never> => {
      await finishCall(sql, spec.callId, { status: 'FAILED', outcome: 'failed', outcomeDetail: detail, reason: 'engine_unavailable', analyse: false });
      this.#o.log?.('warn', 'no engine took the call', { callId: spec.callId, detail });
      throw new ApiError('unavailable', 'The real-time media service is unavailable: no engine accepted the call', { cause });
    };
    let reply;
    try {
      const answer = await bus.request(subjects.dispatch(), callCodecs.spec.encode(spec), { timeoutMs: DISPATCH_TIMEOUT_MS });
      reply = callCodecs.dispatchReply.decode(answer.data);
    } catch (error) {
      return fail(isBusError(error) ? error.code : String(error), error);
    }
    if (!reply.ok) return fail(`${reply.code}: ${reply.message}`);
    if (!reply.mediaUrl) {
      this.endOnEngine(spec.callId, 'no_media_server');
      return fail('the engine that accepted the call runs no media server (PARLEY_MEDIA_URL)');
    }
    await markDispatched(sql, spec.callId, { engineId: reply.engineId, maxDurationMs: spec.limits.maxDurationMs });
    return mediaStreamUrl(reply.mediaUrl, 'carrier-b', reply.streamToken);
  }

  async #mergeMeta(sql: Queryable, id: string, values: Record<string, unknown>): Promise<void> {
    await sql`update call_records set meta_data = meta_data || ${(sql as Sql).json(values as never)}, updated_at = now() where id = ${id}`;
  }
}

const CARRIER_B_ENDS: Record<string, { status: 'COMPLETED' | 'FAILED' | 'CANCELLED'; outcome: string }> = {
  completed: { status: 'COMPLETED', outcome: 'completed' },
  'no-answer': { status: 'COMPLETED', outcome: 'no_answer' },
  busy: { status: 'COMPLETED', outcome: 'busy' },
  failed: { status: 'FAILED', outcome: 'failed' },
  canceled: { status: 'CANCELLED', outcome: 'cancelled' },
};

/** The call's room name (its Call ID). */
export function roomNameFor(id: string): string {
  return `call-${id}`;
}

/** The engine's limits, from master_settings (maxDurationSeconds, inactivitySeconds) when sent. */
function callLimits(settings: Record<string, unknown> | undefined): CallSpec['limits'] {
  const seconds = (value: unknown, fallbackMs: number) =>
    typeof value === 'number' && Number.isFinite(value) && value >= 1 && value <= 4 * 3600 ? Math.round(value * 1000) : fallbackMs;
  return {
    maxDurationMs: seconds(settings?.maxDurationSeconds, DEFAULT_MAX_DURATION_MS),
    inactivityMs: seconds(settings?.inactivitySeconds, DEFAULT_INACTIVITY_MS),
  };
}
