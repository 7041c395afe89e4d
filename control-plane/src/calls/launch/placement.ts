/**
 * Placing outbound phone calls (docs/architecture.md §3 steps 1–2): POST /voice/session, POST /voice/callback and the
 * scheduler meet here. A call is checked, recorded (calls/repository/), described for the engine (call-spec.ts),
 * handed to an engine (engine-dispatch.ts) and placed at the carrier of the calling number (carriers/<carrier>/voice.ts),
 * whose answer request then opens the media stream to that engine's session (carrier-calls.ts).
 *
 * What a request loaded (the agent, the calling number, the carrier account) is passed on, not read again. A call
 * with a future time is only recorded (SCHEDULED); the scheduler starts it when due with `startRecorded`, which
 * builds everything from the record and the agent as it is then — so the record holds what the call needs: its
 * variables, the per-call master_settings and (sealed) function tools.
 */
import type { Bus } from '@parley/engine/bus';
import type { CallSpec } from '@parley/engine/protocol';
import { findAgent } from '../../agents/repository.ts';
import { agentRecord, type AgentRecord, type StoredTools } from '../../agents/records.ts';
import { prepareTools } from '../../agents/function-tools.ts';
import type { Principal } from '../../auth/principal.ts';
import { CarrierError } from '../../telephony/carrier.ts';
import { isVoiceCarrier, voiceCarriers } from '../../carriers/voice-carriers.ts';
import type { VoiceAccount, VoiceCarrierName } from '../../carriers/voice-carrier.ts';
import type { VoiceAccounts } from '../../carriers/voice-accounts.ts';
import type { Sql } from '../../db/database.ts';
import { isId, newId } from '../../db/ids.ts';
import { ApiError, badField, notFound } from '../../errors.ts';
import type { KeyRing } from '../../secrets/key-ring.ts';
import { findActiveNumberByValue, type PhoneNumberRow } from '../../telephony/phone-number-repository.ts';
import { roomNameFor, type CallRow } from '../repository/call-records.ts';
import { createCall, finishCall } from '../repository/call-repository.ts';
import {
  findCall,
  findCallByRoomName,
  hasRecentDuplicate,
  keepStreamUrl,
  mergeCallMeta,
  META_CARRIER_CALL,
  queueScheduledCall,
} from '../repository/launch-repository.ts';
import { admitCall, assertMayCall, type AdmissionLimits } from '../../billing/call-admission.ts';
import { buildCallSpec, callLimits } from './call-spec.ts';
import { assertDestinationAllowed } from './calling-scope.ts';
import { EngineDispatcher, type PlacementLog } from './engine-dispatch.ts';
import { E164_EXAMPLE, isE164 } from '../../http/e164.ts';
import type {
  CallbackRequest,
  CampaignCallRequest,
  PlaceCallRequest,
  PlacedCall,
  PlacedCallback,
  PlacedWebCall,
  PlacedWebsocketCall,
} from './types.ts';
import { placeWebsocketCall } from './websocket-placement.ts';
import { placeWebCall, type WebPlacementDeps } from './web-placement.ts';
import type { LiveKitConfig } from './livekit-tokens.ts';
import { assertLineFree, SipCalls } from './sip-calls.ts';
import { assertNumberLineFree } from './outbound-line.ts';
import { findRoutable, type RoutableConfiguration } from '../../sip/sip-repository.ts';

/**
 * Who asks for a call: the organisation it is for and the user it is recorded as made by (the key owner; for a
 * callback a chat asks for, the owner of the widget token that opened the conversation).
 */
export type CallRequester = Pick<Principal, 'organisationId' | 'userId'>;

/** Same agent, number and key owner within this window is the same request sent twice (spec: 409). */
export const DUPLICATE_WINDOW_MS = 5_000;

export interface PlacementOptions {
  sql: Sql;
  bus: Bus;
  /** PARLEY_PUBLIC_URL: where carriers reach the webhooks. */
  publicUrl: string;
  accounts: VoiceAccounts;
  keyRing: KeyRing | undefined;
  /** How many calls an organisation may have live at once (billing/call-admission.ts). */
  admission: AdmissionLimits;
  /** LiveKit mode for browser calls (LIVEKIT_URL and keys); undefined: the engine's own WebRTC endpoint. */
  livekit?: LiveKitConfig;
  log?: PlacementLog;
}

/** An outbound call, checked: everything its record and its launch need. */
interface OutboundCall {
  agent: AgentRecord;
  participantName: string;
  participantNumber: string;
  callingNumber: string;
  /** The calling number's carrier; undefined when the call goes over an OUTBOUND SIP configuration instead. */
  carrier: VoiceCarrierName | undefined;
  /** The OUTBOUND SIP configuration (with its trunk) of an agent without a carrier number. */
  sip: RoutableConfiguration | undefined;
  /** The carrier number the call goes out from, with its own line cap (outbound-line.ts). */
  numberLine: NumberLine | undefined;
  /** Opened while checking a call placed now; a scheduled call opens it when due. */
  account: VoiceAccount | undefined;
  scheduledAt: Date | undefined;
  customVariables: Record<string, unknown>;
  useCase: string | null;
  masterSettings: Record<string, unknown> | undefined;
  tools: StoredTools | undefined;
  source: 'api' | 'campaign';
  extraMeta?: Record<string, unknown>;
}

/** A carrier number as its line cap is checked. */
type NumberLine = Parameters<typeof assertNumberLineFree>[1];

/** What a carrier needs to place a dispatched call. */
interface CarrierLaunch {
  callId: string;
  carrier: VoiceCarrierName;
  account: VoiceAccount;
  spec: CallSpec;
  to: string;
  from: string;
}

export class CallPlacement {
  readonly #options: PlacementOptions;
  readonly dispatcher: EngineDispatcher;
  /** Calls over SIP trunks: inbound routing, outbound dials through the SIP gateway. */
  readonly sip: SipCalls;

  constructor(options: PlacementOptions) {
    this.#options = options;
    this.dispatcher = new EngineDispatcher(options.sql, options.bus, options.log);
    this.sip = new SipCalls({
      sql: options.sql,
      bus: options.bus,
      dispatcher: this.dispatcher,
      keyRing: options.keyRing,
      admission: options.admission,
      log: options.log,
    });
  }

  /** What placing a browser call needs: for POST /voice/session here, and the widget's voice session. */
  get webDeps(): WebPlacementDeps {
    const { sql, keyRing, admission, livekit } = this.#options;
    return { sql, dispatcher: this.dispatcher, keyRing, admission, livekit };
  }

  get publicUrl(): string {
    return this.#options.publicUrl.replace(/\/+$/, '');
  }

  get accounts(): VoiceAccounts {
    return this.#options.accounts;
  }

  /** Parley's webhook URL of a call at its carrier. */
  webhookUrl(carrier: VoiceCarrierName, kind: 'answer' | 'status' | 'dial', callId: string): string {
    return `${this.publicUrl}/webhooks/${carrier}/${kind}/${callId}`;
  }

  /** POST /voice/session. */
  async placeOutbound(
    principal: Principal,
    body: PlaceCallRequest,
  ): Promise<PlacedCall | PlacedWebsocketCall | PlacedWebCall> {
    const agent = await this.#voiceAgent(principal.organisationId, body.agentId);
    if (body.callType === 'websocket') {
      const { sql, keyRing, admission } = this.#options;
      return placeWebsocketCall({ sql, dispatcher: this.dispatcher, keyRing, admission }, principal, agent, body);
    }
    if (body.callType === 'web') {
      if (body.callTime !== undefined)
        throw badField('body.callTime', 'cannot schedule a web call: the browser connects when it is placed');
      return placeWebCall(this.webDeps, {
        organisationId: principal.organisationId,
        agent,
        participantName: body.participantName,
        participantNumber: body.participantNumber,
        customVariables: body.customVariables,
        useCase: body.useCase,
        masterSettings: body.master_settings,
        tools:
          body.functionTools === undefined
            ? undefined
            : prepareTools(body.functionTools, this.#options.keyRing, principal.organisationId),
        createdById: principal.userId,
        source: 'api',
      });
    }
    if (!body.participantNumber) throw badField('body.participantNumber', 'is required when callType is sip');
    if (!isE164(body.participantNumber)) throw badField('body.participantNumber', `must be ${E164_EXAMPLE}`);
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
            : prepareTools(body.functionTools, this.#options.keyRing, principal.organisationId),
        source: campaignId ? 'campaign' : 'api',
      },
      principal.organisationId,
    );
    const id = await this.#record(principal, outbound, campaignId);
    if (!scheduledAt) await this.#startChecked(id, principal.organisationId, outbound);
    return {
      success: true,
      roomName: roomNameFor(id),
      sessionId: id,
      callType: 'sip',
      status: scheduledAt ? 'scheduled' : 'initiated',
    };
  }

  /**
   * A campaign's call (the campaign dialler, docs/architecture.md §13): checked, admitted under the billing row lock,
   * recorded and launched exactly as POST /voice/session's, under the id the dialler leased the contact with. The
   * duplicate-dispatch window is not applied: the contact's lease already makes the call one of a kind, and a retry
   * may come sooner than 5 seconds. Throws like POST /voice/session (402 no line or no money, 503, 502, …).
   */
  async placeCampaignCall(call: CampaignCallRequest): Promise<void> {
    const agent = await this.#voiceAgent(call.organisationId, call.agentId);
    const masterSettings = {
      maxDurationSeconds: call.maxCallDurationSeconds,
      inactivitySeconds: call.inactivitySeconds,
    };
    const outbound = await this.#checked(
      {
        agent,
        participantName: call.participantName,
        participantNumber: call.participantNumber,
        callingNumber: call.callingNumber ?? agent.callingNumber ?? undefined,
        scheduledAt: undefined,
        customVariables: { ...call.customVariables, campaignId: call.campaignId },
        useCase: null,
        masterSettings,
        tools: undefined,
        source: 'campaign',
      },
      call.organisationId,
    );
    await this.#record({ organisationId: call.organisationId, userId: call.createdById }, outbound, call.campaignId, {
      id: call.callId,
      oncePerLease: true,
    });
    await this.#startChecked(call.callId, call.organisationId, outbound);
  }

  /**
   * POST /voice/callback: a new outbound call to the person of an earlier call — by the same agent, or for a chat
   * conversation by the chat agent's callback voice agent.
   */
  async placeCallback(principal: CallRequester, body: CallbackRequest): Promise<PlacedCallback> {
    const { sql } = this.#options;
    if (!body.roomName?.trim()) throw badField('body.roomName', 'is required');
    const original = await findCallByRoomName(sql, body.roomName);
    if (!original) throw notFound('Call');
    if (original.organisation_id !== principal.organisationId)
      throw new ApiError('forbidden', 'The call belongs to another organisation');
    const participantNumber = original.phone_number;
    if (!participantNumber || !isE164(participantNumber))
      throw badField('body.roomName', 'the original call has no phone number to call back');
    const firstRow = await findAgent(sql, principal.organisationId, original.agent_id);
    if (!firstRow) throw notFound('Agent');
    const first = agentRecord(firstRow);
    let agent = first;
    if (first.agentType === 'CHAT') {
      if (!first.callbackAgentId)
        throw badField('body.roomName', 'the chat agent of that conversation has no callback agent (callbackAgentId)');
      agent = await this.#voiceAgent(principal.organisationId, first.callbackAgentId);
    } else {
      assertCanCall(first);
    }
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
    if (!scheduledAt) await this.#startChecked(id, principal.organisationId, outbound);
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
   * Starts a recorded call whose time has come (the scheduler): its account and agent as they are now, its own
   * variables, settings and tools from the record. Throws 503 (no engine) or 502 (the carrier refused); either way
   * the record is finished FAILED first.
   */
  async startRecorded(callId: string): Promise<void> {
    const { sql } = this.#options;
    const call = await findCall(sql, callId);
    if (!call || call.ended_at) return;
    if (call.sip_configuration_id) return this.#startRecordedSip(call, call.sip_configuration_id);
    const carrier = call.meta_data.carrier;
    if (typeof carrier !== 'string' || !isVoiceCarrier(carrier))
      throw new ApiError('invalid_state', `The call names no carrier it can be placed with (${String(carrier)})`);
    let launch: CarrierLaunch;
    try {
      // The wallet may have run dry, or the lines filled up, since the call was scheduled.
      await assertMayCall(sql, call.organisation_id);
      await sql.begin(async (tx) => {
        await admitCall(tx, call.organisation_id, this.#options.admission);
        const number = await findActiveNumberByValue(tx, call.organisation_id, call.calling_number ?? '');
        if (number) await assertNumberLineFree(tx, numberLineOf(number));
        await queueScheduledCall(tx, callId);
      });
      const account = await this.#options.accounts.require(sql, call.organisation_id, carrier);
      const agent = await this.#voiceAgent(call.organisation_id, call.agent_id);
      launch = {
        callId,
        carrier,
        account,
        spec: this.#recordedSpec(call, agent),
        to: call.phone_number!,
        from: call.calling_number!,
      };
    } catch (error) {
      // The account was disconnected, the agent removed, the wallet emptied or every line taken while the call waited.
      await this.#failed(callId, error instanceof Error ? error.message : String(error), 'not_placeable');
      throw error;
    }
    await this.#launch(launch);
  }

  /** A scheduled call over an OUTBOUND SIP configuration, come due: checked again, then dialled by a gateway. */
  async #startRecordedSip(call: CallRow, sipConfigurationId: string): Promise<void> {
    const { sql } = this.#options;
    let config: RoutableConfiguration;
    let spec: CallSpec;
    try {
      await assertMayCall(sql, call.organisation_id);
      const found = await findRoutable(sql, sipConfigurationId);
      if (!found?.is_active)
        throw new ApiError('invalid_state', 'The SIP configuration of the call was removed or deactivated');
      config = found;
      await sql.begin(async (tx) => {
        await admitCall(tx, call.organisation_id, this.#options.admission);
        await assertLineFree(tx, config);
        await queueScheduledCall(tx, call.id);
      });
      spec = this.#recordedSpec(call, await this.#voiceAgent(call.organisation_id, call.agent_id));
    } catch (error) {
      await this.#failed(call.id, error instanceof Error ? error.message : String(error), 'not_placeable');
      throw error;
    }
    await this.sip.launchOutbound(spec, config, call.phone_number!);
  }

  /** A call checked and recorded a moment ago: launched with what the request loaded. */
  async #startChecked(callId: string, organisationId: string, call: OutboundCall): Promise<void> {
    const spec = buildCallSpec({
      callId,
      organisationId,
      agent: call.agent,
      keyRing: this.#options.keyRing,
      direction: 'OUTBOUND',
      participant: { name: call.participantName, phoneNumber: call.participantNumber },
      callVariables: call.customVariables,
      tools: call.tools,
      masterSettings: call.masterSettings,
    });
    if (call.sip) return this.sip.launchOutbound(spec, call.sip, call.participantNumber);
    await this.#launch({
      callId,
      carrier: call.carrier!,
      account: call.account!,
      spec,
      to: call.participantNumber,
      from: call.callingNumber,
    });
  }

  /** Dispatch to an engine, then ask the carrier to place the call streaming to it. */
  async #launch(launch: CarrierLaunch): Promise<void> {
    const { sql } = this.#options;
    const voice = voiceCarriers[launch.carrier];
    const streamUrl = await this.dispatcher.dispatch(launch.spec, voice.media);
    // Carriers that fetch an answer document get the stream URL from it; the URL waits on the record until then.
    if (voice.signsWebhooks) await keepStreamUrl(sql, launch.callId, streamUrl);
    let callRef: string;
    try {
      callRef = await voice.createCall(launch.account, {
        to: launch.to,
        from: launch.from,
        urls: {
          answer: this.webhookUrl(launch.carrier, 'answer', launch.callId),
          status: this.webhookUrl(launch.carrier, 'status', launch.callId),
        },
        streamUrl,
      });
    } catch (error) {
      const message = error instanceof CarrierError ? error.message : String(error);
      await this.#failed(launch.callId, message, 'carrier_rejected');
      this.#options.log?.('warn', `${launch.carrier} refused to place the call`, {
        callId: launch.callId,
        error: message,
      });
      throw new ApiError('upstream_failed', `${launch.carrier} did not place the call: ${message}`, { cause: error });
    }
    await mergeCallMeta(sql, launch.callId, { [META_CARRIER_CALL]: callRef });
  }

  async #failed(callId: string, detail: string, reason: string): Promise<void> {
    await finishCall(this.#options.sql, callId, {
      status: 'FAILED',
      outcome: 'failed',
      outcomeDetail: detail,
      reason,
      analyse: false,
    });
    this.dispatcher.end(callId, reason);
  }

  async #voiceAgent(organisationId: string, agentId: string): Promise<AgentRecord> {
    const row = await findAgent(this.#options.sql, organisationId, agentId);
    if (!row) throw notFound('Agent');
    const agent = agentRecord(row);
    assertCanCall(agent);
    return agent;
  }

  /** The checks before anything is recorded: a call that cannot be placed leaves no record behind. */
  async #checked(
    call: Omit<OutboundCall, 'carrier' | 'callingNumber' | 'account' | 'sip' | 'numberLine'> & {
      callingNumber: string | undefined;
    },
    organisationId: string,
  ): Promise<OutboundCall> {
    const { sql } = this.#options;
    const number = call.callingNumber
      ? await findActiveNumberByValue(sql, organisationId, call.callingNumber)
      : undefined;
    // Not a carrier number: the call goes over an OUTBOUND SIP configuration (spec document 2: "no calling number or
    // SIP configuration" is a 400).
    if (!number) return this.#checkedSip(call, organisationId);
    const carrier = number.provider;
    if (!isVoiceCarrier(carrier))
      throw new ApiError(
        'invalid_state',
        `Calls from ${carrier} numbers are not supported yet: use a carrier-a, carrier-b or carrier-c number`,
      );
    assertDestinationAllowed({
      from: number.phone_number,
      to: call.participantNumber,
      scope: number.calling_scope,
      allowedCountries: number.allowed_countries,
    });
    await assertMayCall(sql, organisationId);
    const account = call.scheduledAt ? undefined : await this.#options.accounts.require(sql, organisationId, carrier);
    return {
      ...call,
      callingNumber: number.phone_number,
      carrier,
      account,
      sip: undefined,
      numberLine: numberLineOf(number),
    };
  }

  /** The checks of a call over the organisation's OUTBOUND SIP configuration for the agent (its number, when named). */
  async #checkedSip(
    call: Omit<OutboundCall, 'carrier' | 'callingNumber' | 'account' | 'sip' | 'numberLine'> & {
      callingNumber: string | undefined;
    },
    organisationId: string,
  ): Promise<OutboundCall> {
    const sip = await this.sip.outboundConfiguration(organisationId, call.agent.id, call);
    await assertMayCall(this.#options.sql, organisationId);
    return {
      ...call,
      callingNumber: sip.phone_number,
      carrier: undefined,
      account: undefined,
      sip,
      numberLine: undefined,
    };
  }

  /** Records the call, refusing the same agent + number + key owner within DUPLICATE_WINDOW_MS (409). */
  async #record(
    principal: { organisationId: string; userId: string | null },
    call: OutboundCall,
    campaignId: string | null,
    options: { id?: string; oncePerLease?: boolean } = {},
  ): Promise<string> {
    const id = options.id ?? newId();
    const limits = callLimits(call.masterSettings);
    await this.#options.sql.begin(async (tx) => {
      const duplicate =
        !options.oncePerLease &&
        (await hasRecentDuplicate(tx, {
          agentId: call.agent.id,
          participantNumber: call.participantNumber,
          userId: principal.userId!,
          windowMs: DUPLICATE_WINDOW_MS,
        }));
      if (duplicate)
        throw new ApiError(
          'conflict',
          'The same call (agent, participantNumber and key owner) was requested within the last 5 seconds',
        );
      // A call placed now holds one of the organisation's lines from its record on (QUEUED, then INITIATED).
      if (!call.scheduledAt) await admitCall(tx, principal.organisationId, this.#options.admission);
      if (!call.scheduledAt && call.sip) await assertLineFree(tx, call.sip);
      if (!call.scheduledAt && call.numberLine) await assertNumberLineFree(tx, call.numberLine);
      await createCall(tx, {
        id,
        organisationId: principal.organisationId,
        agent: call.agent,
        roomName: roomNameFor(id),
        participantName: call.participantName,
        phoneNumber: call.participantNumber,
        createdById: principal.userId,
        callType: 'sip',
        callDirection: 'OUTBOUND',
        campaignId,
        customVariables: call.customVariables,
        metaData: {
          ...(call.carrier ? { carrier: call.carrier } : { sip: { sipTrunkId: call.sip!.sip_trunk_id } }),
          ...call.extraMeta,
          ...(call.masterSettings && { masterSettings: call.masterSettings }),
          ...(call.tools && { functionToolsOverridden: true }),
        },
        functionTools: call.tools,
        sipConfigurationId: call.sip?.id ?? null,
        callingNumber: call.callingNumber,
        scheduledTime: call.scheduledAt ?? null,
        scheduledStatus: call.scheduledAt ? 'PENDING' : null,
        status: call.scheduledAt ? 'SCHEDULED' : 'QUEUED',
        source: call.source,
        useCase: call.useCase,
        maxDurationMs: limits.maxDurationMs,
      });
    });
    return id;
  }

  /** The engine's view of a recorded outbound call, with the agent as it is now. */
  #recordedSpec(call: CallRow, agent: AgentRecord): CallSpec {
    return buildCallSpec({
      callId: call.id,
      organisationId: call.organisation_id,
      agent,
      keyRing: this.#options.keyRing,
      direction: 'OUTBOUND',
      participant: { name: call.participant_name, phoneNumber: call.phone_number },
      callVariables: call.custom_variables,
      tools: (call.function_tools ?? undefined) as StoredTools | undefined,
      masterSettings: call.meta_data.masterSettings as Record<string, unknown> | undefined,
    });
  }
}

function numberLineOf(number: PhoneNumberRow): NumberLine {
  return {
    id: number.id,
    organisationId: number.organisation_id,
    phoneNumber: number.phone_number,
    limit: number.max_concurrent_calls,
  };
}

/** Only an active VOICE agent places and takes phone calls. */
function assertCanCall(agent: AgentRecord): void {
  if (!agent.isActive) throw new ApiError('invalid_state', 'The agent is not active: activate it before placing calls');
  if (agent.agentType !== 'VOICE')
    throw new ApiError('invalid_state', `The agent is a ${agent.agentType} agent: phone calls need a VOICE agent`);
}

/** A future date-time from `value` (undefined when absent); 400 naming `field` otherwise. */
function futureTime(value: string | undefined, field: string): Date | undefined {
  if (value === undefined) return undefined;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw badField(field, 'must be an ISO 8601 date-time');
  if (at.getTime() <= Date.now()) throw badField(field, 'must be in the future');
  return at;
}
