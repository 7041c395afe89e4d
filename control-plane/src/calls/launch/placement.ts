/**
 * Placing outbound phone calls (DESIGN.md §3 steps 1–2): POST /voice/session, POST /voice/callback and the
 * scheduler meet here. A call is checked, recorded (call-repository.ts), handed to an engine (engine-dispatch.ts),
 * and placed at the carrier of the calling number (voice-carriers/), whose answer request then opens the media
 * stream to that engine's session (carrier-calls.ts).
 *
 * A call with a future time is only recorded (SCHEDULED); the scheduler starts it when due with `startRecorded`,
 * which builds everything from the record — so the record holds what the call needs: its variables, the per-call
 * master_settings and (sealed) function tools.
 *
 * The engine's stream URL holds a one-use stream token: it is kept in the record's metaData until the carrier's
 * answer request has taken it (carrier-c, which streams without an answer request, is given it at once).
 */
import type { Bus } from '@parley/engine/bus';
import type { AgentSnapshot, CallSpec } from '@parley/engine/protocol';
import type { Principal } from '../../auth/principal.ts';
import type { Queryable, Sql } from '../../db/database.ts';
import { isId, newId } from '../../db/ids.ts';
import { ApiError, badField, notFound } from '../../errors.ts';
import { CarrierError } from '../../carriers/carrier.ts';
import { findAgent } from '../../agents/repository.ts';
import { agentRecord, type AgentRecord, type StoredTools } from '../../agents/records.ts';
import { toAgentSnapshot } from '../../agents/snapshot.ts';
import { prepareTools, webhookToolSpecs } from '../../agents/function-tools.ts';
import type { FunctionToolsInput } from '../../agents/field-schemas.ts';
import type { KeyRing } from '../../secrets/key-ring.ts';
import { assertFunded } from '../../wallet/wallet.ts';
import { createCall, finishCall } from '../repository/call-repository.ts';
import type { CallRow } from '../repository/call-records.ts';
import { assertDestinationAllowed } from './calling-scope.ts';
import { callLimits, EngineDispatcher, roomNameFor, type PlacementLog } from './engine-dispatch.ts';
import { isVoiceCarrier, voiceCarriers, type VoiceCarrierName } from '../../carriers/voice-carriers.ts';
import type { VoiceAccounts } from '../../carriers/voice-accounts.ts';
import { placeWebsocketCall, type PlacedWebsocketCall } from './websocket-placement.ts';

/** Same agent, number and key owner within this window is the same request sent twice (spec: 409). */
export const DUPLICATE_WINDOW_MS = 5_000;
/** metaData keys placement writes. */
export const META_STREAM_URL = 'mediaStreamUrl';
export const META_CARRIER_CALL = 'carrierCallSid';
const META_CALL_TOOLS = 'callFunctionTools';

const E164 = /^\+[1-9]\d{6,14}$/;

export interface PlacementOptions {
  sql: Sql;
  bus: Bus;
  /** PARLEY_PUBLIC_URL: where carriers reach the webhooks. */
  publicUrl: string;
  accounts: VoiceAccounts;
  keyRing: KeyRing | undefined;
  log?: PlacementLog;
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

export interface CallbackRequest {
  roomName: string;
  dialingNumber?: string;
  dateTime?: string;
  metaData?: Record<string, unknown>;
}

export interface PlacedCallback {
  success: true;
  callType: 'sip';
  roomName: string;
  sessionId: string;
  message: string;
  originalRoomName: string;
  originalSessionId: string;
  scheduledFor: string | null;
}

interface NumberRow {
  phone_number: string;
  provider: string;
}

/** What recording an outbound call needs, checked. */
interface OutboundCall {
  agent: AgentRecord;
  participantName: string;
  participantNumber: string;
  callingNumber: string;
  carrier: VoiceCarrierName;
  scheduledAt: Date | undefined;
  customVariables: Record<string, unknown>;
  useCase: string | null;
  masterSettings: Record<string, unknown> | undefined;
  tools: StoredTools | undefined;
  source: 'api' | 'campaign';
  extraMeta?: Record<string, unknown>;
}

export class CallPlacement {
  readonly #o: PlacementOptions;
  readonly dispatcher: EngineDispatcher;

  constructor(options: PlacementOptions) {
    this.#o = options;
    this.dispatcher = new EngineDispatcher(options.sql, options.bus, options.log);
  }

  get publicUrl(): string {
    return this.#o.publicUrl.replace(/\/+$/, '');
  }

  get accounts(): VoiceAccounts {
    return this.#o.accounts;
  }

  /** Parley's webhook URL of a call at its carrier. */
  webhookUrl(carrier: VoiceCarrierName, kind: 'answer' | 'status' | 'dial', callId: string): string {
    return `${this.publicUrl}/webhooks/${carrier}/${kind}/${callId}`;
  }

  /** POST /voice/session. */
  async placeOutbound(principal: Principal, body: PlaceCallRequest): Promise<PlacedCall | PlacedWebsocketCall> {
    const agent = await this.#voiceAgent(principal.organisationId, body.agentId);
    if (body.callType === 'websocket')
      return placeWebsocketCall(
        { sql: this.#o.sql, dispatcher: this.dispatcher, keyRing: this.#o.keyRing },
        principal,
        agent,
        body,
      );
    if (body.callType !== 'sip')
      throw new ApiError(
        'invalid_state',
        `callType "${body.callType}" is not supported yet: use callType "sip" or "websocket"`,
      );
    if (!body.participantNumber) throw badField('body.participantNumber', 'is required when callType is sip');
    if (!E164.test(body.participantNumber))
      throw badField('body.participantNumber', 'must be an E.164 number such as +14155550100');
    const scheduledAt = futureTime(body.callTime, 'body.callTime');
    const customVariables = body.customVariables ?? {};
    const campaignId =
      typeof customVariables.campaignId === 'string' && isId(customVariables.campaignId)
        ? customVariables.campaignId
        : null;
    const outbound = await this.#checked(
      {
        agent,
        participantName: body.participantName,
        participantNumber: body.participantNumber,
        callingNumber: body.callingNumber ?? agent.callingNumber ?? undefined,
        scheduledAt,
        customVariables,
        useCase: body.useCase ?? null,
        masterSettings: body.master_settings,
        tools:
          body.functionTools === undefined
            ? undefined
            : prepareTools(body.functionTools, this.#o.keyRing, principal.organisationId),
        source: campaignId ? 'campaign' : 'api',
      },
      principal.organisationId,
    );
    const id = await this.#record(principal, outbound, campaignId);
    if (!scheduledAt) await this.startRecorded(id);
    return {
      success: true,
      roomName: roomNameFor(id),
      sessionId: id,
      callType: 'sip',
      status: scheduledAt ? 'scheduled' : 'initiated',
    };
  }

  /**
   * POST /voice/callback: a new outbound call to the person of an earlier call — by the same agent, or for a chat
   * conversation by the chat agent's callback voice agent.
   */
  async placeCallback(principal: Principal, body: CallbackRequest): Promise<PlacedCallback> {
    const { sql } = this.#o;
    if (!body.roomName?.trim()) throw badField('body.roomName', 'is required');
    const [original] = await sql<CallRow[]>`select * from call_records where room_name = ${body.roomName}`;
    if (!original) throw notFound('Call');
    if (original.organisation_id !== principal.organisationId)
      throw new ApiError('forbidden', 'The call belongs to another organisation');
    const participantNumber = original.phone_number;
    if (!participantNumber || !E164.test(participantNumber))
      throw badField('body.roomName', 'the original call has no phone number to call back');
    const [firstAgent] = original.agent_id
      ? await sql<{ id: string; agent_type: string; callback_agent_id: string | null }[]>`
      select id, agent_type, callback_agent_id from agents where id = ${original.agent_id} and organisation_id = ${principal.organisationId}`
      : [];
    if (!firstAgent) throw notFound('Agent');
    let agentId = firstAgent.id;
    if (firstAgent.agent_type === 'CHAT') {
      if (!firstAgent.callback_agent_id)
        throw badField('body.roomName', 'the chat agent of that conversation has no callback agent (callbackAgentId)');
      agentId = firstAgent.callback_agent_id;
    }
    const agent = await this.#voiceAgent(principal.organisationId, agentId);
    const scheduledAt = futureTime(body.dateTime, 'body.dateTime');
    const customVariables: Record<string, unknown> = {
      ...original.custom_variables,
      ...(body.metaData !== undefined && { callbackMetaData: JSON.stringify(body.metaData) }),
    };
    const outbound = await this.#checked(
      {
        agent,
        participantName: original.participant_name,
        participantNumber,
        // The spec's dialingNumber is the number we call from: the earlier call's, then the agent's.
        callingNumber: body.dialingNumber ?? original.calling_number ?? agent.callingNumber ?? undefined,
        scheduledAt,
        customVariables,
        useCase: original.use_case,
        masterSettings: undefined,
        tools: undefined,
        source: 'api',
        extraMeta: { callbackOf: original.id },
      },
      principal.organisationId,
    );
    const id = await this.#record(principal, outbound, null);
    if (!scheduledAt) await this.startRecorded(id);
    return {
      success: true,
      callType: 'sip',
      roomName: roomNameFor(id),
      sessionId: id,
      message: scheduledAt ? `Callback scheduled for ${scheduledAt.toISOString()}` : 'Callback initiated',
      originalRoomName: original.room_name,
      originalSessionId: original.id,
      scheduledFor: scheduledAt?.toISOString() ?? null,
    };
  }

  /**
   * Starts a recorded outbound call: dispatch to an engine, then the carrier. Throws 503 (no engine) or 502 (the
   * carrier refused); either way the record is finished FAILED first.
   */
  async startRecorded(callId: string): Promise<void> {
    const { sql } = this.#o;
    const [call] = await sql<CallRow[]>`select * from call_records where id = ${callId}`;
    if (!call || call.ended_at) return;
    const carrier = call.meta_data.carrier;
    if (typeof carrier !== 'string' || !isVoiceCarrier(carrier))
      throw new ApiError('invalid_state', `The call names no carrier it can be placed with (${String(carrier)})`);
    const voice = voiceCarriers[carrier];
    const failed = async (detail: string, reason: string) => {
      await finishCall(sql, callId, {
        status: 'FAILED',
        outcome: 'failed',
        outcomeDetail: detail,
        reason,
        analyse: false,
      });
      this.dispatcher.end(callId, reason);
    };
    let account;
    let spec;
    try {
      account = await this.#o.accounts.require(sql, call.organisation_id, carrier);
      spec = await this.#spec(call);
    } catch (error) {
      // The account was disconnected or the agent removed while the call waited for its time.
      await failed(error instanceof Error ? error.message : String(error), 'not_placeable');
      throw error;
    }
    const streamUrl = await this.dispatcher.dispatch(spec, voice.media);
    if (voice.signsWebhooks) await this.#mergeMeta(sql, callId, { [META_STREAM_URL]: streamUrl });
    let callRef: string;
    try {
      callRef = await voice.createCall(account, {
        to: call.phone_number!,
        from: call.calling_number!,
        urls: {
          answer: this.webhookUrl(carrier, 'answer', callId),
          status: this.webhookUrl(carrier, 'status', callId),
        },
        streamUrl,
      });
    } catch (error) {
      const message = error instanceof CarrierError ? error.message : String(error);
      await failed(message, 'carrier_rejected');
      this.#o.log?.('warn', `${carrier} refused to place the call`, { callId, error: message });
      throw new ApiError('upstream_failed', `${carrier} did not place the call: ${message}`, { cause: error });
    }
    await this.#mergeMeta(sql, callId, { [META_CARRIER_CALL]: callRef });
  }

  async #voiceAgent(organisationId: string, agentId: string): Promise<AgentRecord> {
    const row = await findAgent(this.#o.sql, organisationId, agentId);
    if (!row) throw notFound('Agent');
    const agent = agentRecord(row);
    if (!agent.isActive)
      throw new ApiError('invalid_state', 'The agent is not active: activate it before placing calls');
    if (agent.agentType !== 'VOICE')
      throw new ApiError('invalid_state', `The agent is a ${agent.agentType} agent: phone calls need a VOICE agent`);
    return agent;
  }

  /** The checks before anything is recorded: a call that cannot be placed leaves no record behind. */
  async #checked(
    call: Omit<OutboundCall, 'carrier' | 'callingNumber'> & { callingNumber: string | undefined },
    organisationId: string,
  ): Promise<OutboundCall> {
    const { sql } = this.#o;
    if (!call.callingNumber)
      throw new ApiError('invalid_state', 'No calling number: send callingNumber or give the agent a callingNumber');
    const [number] = await sql<(NumberRow & { calling_scope: string; allowed_countries: string[] })[]>`
      select phone_number, provider, calling_scope, allowed_countries from phone_numbers
      where organisation_id = ${organisationId} and phone_number = ${call.callingNumber} and status = 'ACTIVE' and deleted_at is null`;
    if (!number)
      throw new ApiError(
        'invalid_state',
        `callingNumber ${call.callingNumber} is not one of the organisation's active numbers`,
      );
    if (!isVoiceCarrier(number.provider))
      throw new ApiError(
        'invalid_state',
        `Calls from ${number.provider} numbers are not supported yet: use a carrier-a, carrier-b or carrier-c number`,
      );
    assertDestinationAllowed({
      from: number.phone_number,
      to: call.participantNumber,
      scope: number.calling_scope,
      allowedCountries: number.allowed_countries,
    });
    await assertFunded(sql, organisationId);
    if (!call.scheduledAt) await this.#o.accounts.require(sql, organisationId, number.provider);
    return { ...call, callingNumber: number.phone_number, carrier: number.provider };
  }

  /** Records the call, refusing the same agent + number + key owner within DUPLICATE_WINDOW_MS (409). */
  async #record(principal: Principal, call: OutboundCall, campaignId: string | null): Promise<string> {
    const id = newId();
    const limits = callLimits(call.masterSettings);
    await this.#o.sql.begin(async (tx) => {
      // One request at a time per agent, number and key owner: the duplicate check and the insert cannot interleave.
      await tx`select pg_advisory_xact_lock(hashtext(${`placement:${call.agent.id}:${call.participantNumber}:${principal.userId}`}))`;
      const [recent] = await tx`select id from call_records
        where agent_id = ${call.agent.id} and phone_number = ${call.participantNumber} and created_by_id = ${principal.userId}
          and created_at > now() - make_interval(secs => ${DUPLICATE_WINDOW_MS / 1000})
          and (call_status is null or call_status <> 'FAILED')
        limit 1`;
      if (recent)
        throw new ApiError(
          'conflict',
          'The same call (agent, participantNumber and key owner) was requested within the last 5 seconds',
        );
      await createCall(tx, {
        id,
        organisationId: principal.organisationId,
        agentId: call.agent.id,
        roomName: roomNameFor(id),
        participantName: call.participantName,
        phoneNumber: call.participantNumber,
        createdById: principal.userId,
        callType: 'sip',
        callDirection: 'OUTBOUND',
        campaignId,
        customVariables: call.customVariables,
        metaData: {
          carrier: call.carrier,
          ...call.extraMeta,
          ...(call.masterSettings && { masterSettings: call.masterSettings }),
          ...(call.tools && { functionToolsOverridden: true, [META_CALL_TOOLS]: call.tools }),
        },
        callingNumber: call.callingNumber,
        scheduledTime: call.scheduledAt ?? null,
        scheduledStatus: call.scheduledAt ? 'PENDING' : null,
        status: call.scheduledAt ? 'SCHEDULED' : null,
        source: call.source,
        useCase: call.useCase,
        maxDurationMs: limits.maxDurationMs,
      });
    });
    return id;
  }

  /** The engine's view of a recorded outbound call, with the agent as it is now. */
  async #spec(call: CallRow): Promise<CallSpec> {
    const agent = await this.#voiceAgent(call.organisation_id, call.agent_id ?? '');
    const ring = this.#o.keyRing;
    const sealedTools = call.meta_data[META_CALL_TOOLS] as StoredTools | undefined;
    const tools = sealedTools ? webhookToolSpecs(sealedTools, ring, call.organisation_id) : undefined;
    const snapshot: AgentSnapshot = { ...toAgentSnapshot(agent, ring), ...(tools && { functionTools: tools }) };
    const masterSettings = call.meta_data.masterSettings as Record<string, unknown> | undefined;
    return {
      callId: call.id,
      organisationId: call.organisation_id,
      agent: snapshot,
      direction: 'OUTBOUND',
      participant: { name: call.participant_name, phoneNumber: call.phone_number ?? undefined },
      variables: {
        ...agent.customVariables,
        ...call.custom_variables,
        participantName: call.participant_name,
        phoneNumber: call.phone_number,
      },
      limits: callLimits(masterSettings),
    };
  }

  async #mergeMeta(sql: Queryable, id: string, values: Record<string, unknown>): Promise<void> {
    await sql`update call_records set meta_data = meta_data || ${(sql as Sql).json(values as never)}, updated_at = now() where id = ${id}`;
  }
}

/** A future date-time from `value` (undefined when absent); 400 naming `field` otherwise. */
function futureTime(value: string | undefined, field: string): Date | undefined {
  if (value === undefined) return undefined;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw badField(field, 'must be an ISO 8601 date-time');
  if (at.getTime() <= Date.now()) throw badField(field, 'must be in the future');
  return at;
}
