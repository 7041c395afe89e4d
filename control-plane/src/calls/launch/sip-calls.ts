/**
 * Calls over SIP trunks (docs/architecture.md §12), on the one launch path of every call: admission
 * (billing/call-admission.ts), a record (calls/repository/), a CallSpec (call-spec.ts) and an engine
 * (engine-dispatch.ts) — with the SIP gateway in the carrier's place (engine/src/protocol/sip.ts).
 *
 * - Inbound: the gateway asks on `v1.sip.inbound` who answers an INVITE. The active INBOUND configuration of the
 *   dialled number answers, if the INVITE came from one of its trunk's source addresses: its agent takes the call
 *   when the organisation may call, the plan has a line free and the configuration's maxConcurrentCalls are not all
 *   live (else the caller waits in its queue, sip-line-queue.ts, or hears busy). The reply carries the engine's
 *   stream token, or the SIP status to refuse with.
 * - Outbound: a call placed over an OUTBOUND configuration is dispatched to an engine, then dialled by a gateway
 *   (`v1.sip.dial`) through the configuration's trunk with its decrypted credentials.
 * - Hang-up: the gateway holding a call's leg hears `hangup` on `v1.sip.<callId>.control`.
 */
import { BlockList, isIP } from 'node:net';
import type { Bus } from '@parley/engine/bus';
import { isBusError } from '@parley/engine/bus';
import {
  SIP_INBOUND_TIMEOUT_MS,
  sipCodecs,
  subjects,
  type CallSpec,
  type SipDialRequest,
  type SipTrunkTarget,
  type SipInboundOffer,
  type SipInboundReply,
} from '@parley/engine/protocol';
import { findAgent } from '../../agents/repository.ts';
import { agentRecord, type AgentRecord } from '../../agents/records.ts';
import { admitCall, QUEUED_HOLDS_LINE_MS, type AdmissionLimits } from '../../billing/call-admission.ts';
import { callPermission, type CallRefusalReason } from '../../billing/call-permission.ts';
import type { Queryable, Sql } from '../../db/database.ts';
import { newId } from '../../db/ids.ts';
import { ApiError } from '../../errors.ts';
import type { KeyRing } from '../../secrets/key-ring.ts';
import {
  findInboundByNumber,
  findOutboundFor,
  lockAndCountLive,
  type RoutableConfiguration,
} from '../../sip/sip-repository.ts';
import { assertDestinationAllowed } from './calling-scope.ts';
import { openTrunkPassword } from '../../sip/trunk-secrets.ts';
import { roomNameFor } from '../repository/call-records.ts';
import { createCall, finishCall } from '../repository/call-repository.ts';
import { buildCallSpec } from './call-spec.ts';
import { DISPATCH_TIMEOUT_MS, type EngineDispatcher, type PlacementLog } from './engine-dispatch.ts';
import { SipLineQueue } from './sip-line-queue.ts';

/** The longest an INVITE waits in a configuration's queue, ms: half the gateway's wait, the rest is the engine's. */

/** After the callee answers, the gateway opens the media bridge within this, ms (a 200 OK, an ACK, one bus hop). */
const ANSWER_TO_MEDIA_MS = 15_000;
export const MAX_INBOUND_QUEUE_WAIT_MS = SIP_INBOUND_TIMEOUT_MS / 2;
/** Kept back from the gateway's wait for our reply to travel and be acted on, ms. */
const INBOUND_REPLY_MARGIN_MS = 500;
/** Below this the engine cannot be asked in earnest (it opens three worker streams), ms. */
const MIN_INBOUND_DISPATCH_MS = 1_000;
/** How long a gateway has to say whether it took a dial, ms: it answers before sending the INVITE. */
export const SIP_DIAL_TIMEOUT_MS = 5_000;
/** The 503's reason when no gateway took the dial. */
export const NO_SIP_GATEWAY =
  'no SIP gateway took the call (is a process with the sip-gateway role running? parley start --roles sip-gateway)';

/** The caller's name on the record when the INVITE gives neither a display name nor a user part. */
const UNKNOWN_CALLER = 'Unknown caller';
/** The longest caller name or number kept from an INVITE's From header, characters (a header can be kilobytes). */
const MAX_FROM_LENGTH = 255;

/** What of a From header value Postgres can store: no NUL, no lone surrogate (§7.4), bounded. */
function storable(value: string | undefined): string {
  return (value ?? '')
    .replace(/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '')
    .slice(0, MAX_FROM_LENGTH)
    .trim();
}

/** SIP refusals of an organisation that may not call (callPermission): closed for good, or until it pays. */
const SIP_STATUS_OF_REFUSAL: Record<CallRefusalReason, number> = {
  organisation_not_found: 403,
  organisation_inactive: 403,
  suspended: 403,
  unpaid_usage: 480,
  insufficient_balance: 480,
};

export interface SipCallsOptions {
  sql: Sql;
  bus: Bus;
  dispatcher: EngineDispatcher;
  keyRing: KeyRing | undefined;
  admission: AdmissionLimits;
  log?: PlacementLog;
}

type Refusal = Extract<SipInboundReply, { ok: false }>;

/** The configuration's trunk as the gateway dials through it, the digest password decrypted (§12). */
function trunkTarget(config: RoutableConfiguration, keyRing: KeyRing | undefined): SipTrunkTarget {
  const password = config.trunk_password_secret
    ? openTrunkPassword(keyRing, config.organisation_id, config.sip_trunk_id, config.trunk_password_secret)
    : undefined;
  return {
    host: config.trunk_host,
    port: config.trunk_port,
    transport: config.trunk_transport,
    ...(config.trunk_username && { username: config.trunk_username }),
    ...(password !== undefined && { password }),
    fromUser: config.phone_number,
  };
}
const refuse = (sipStatus: number, code: string, reason: string): Refusal => ({ ok: false, sipStatus, code, reason });

export class SipCalls {
  readonly #options: SipCallsOptions;
  readonly #queue = new SipLineQueue();

  constructor(options: SipCallsOptions) {
    this.#options = options;
  }

  /** Callers waiting for a line of the configuration on this instance. */
  queued(sipConfigurationId: string): number {
    return this.#queue.queued(sipConfigurationId);
  }

  /** Who answers an INVITE: an admitted, recorded, dispatched call — or the SIP status to refuse it with. */
  async answerInbound(offer: SipInboundOffer, receivedAt = Date.now()): Promise<SipInboundReply> {
    const { sql } = this.#options;
    const config = await findInboundByNumber(sql, offer.to);
    if (!config) return refuse(404, 'no_configuration', `No active INBOUND SIP configuration answers ${offer.to}`);
    if (!sourceAllowed(config.trunk_source_addresses, offer.sourceAddress))
      return refuse(403, 'source_not_allowed', `${offer.sourceAddress} is not a source address of the number's trunk`);
    const organisationId = config.organisation_id;
    const row = config.agent_id ? await findAgent(sql, organisationId, config.agent_id) : undefined;
    const agent = row && agentRecord(row);
    if (!agent || !agent.isActive || agent.agentType !== 'VOICE')
      return refuse(480, 'no_agent', 'No active VOICE agent answers this SIP configuration');
    const permission = await callPermission(sql, organisationId);
    if (!permission.allowed)
      return refuse(SIP_STATUS_OF_REFUSAL[permission.reason], permission.reason, permission.message);

    const id = newId();
    const spec = buildCallSpec({
      callId: id,
      organisationId,
      agent,
      keyRing: this.#options.keyRing,
      direction: 'INBOUND',
      participant: { name: storable(offer.fromName) || undefined, phoneNumber: storable(offer.from) || undefined },
    });
    const waitUntil = receivedAt + Math.min(config.call_timeout_ms, MAX_INBOUND_QUEUE_WAIT_MS);
    let queued;
    try {
      queued = await this.#queue.admit(config.id, config.max_queue_size, waitUntil, () =>
        this.#recordInbound(id, config, agent, offer, spec),
      );
    } catch (error) {
      // The plan's lines (or calls this cycle) are all used: busy, as a carrier's caller hears "all lines busy".
      if (error instanceof ApiError && error.code === 'payment_required')
        return refuse(486, 'plan_call_limit', error.message);
      throw error;
    }
    if ('refused' in queued)
      return refuse(
        486,
        queued.refused,
        `All ${config.max_concurrent_calls} lines of the SIP configuration are busy` +
          (queued.refused === 'queue_timeout' ? ' and none came free in time' : ''),
      );

    const budget = SIP_INBOUND_TIMEOUT_MS - (Date.now() - receivedAt) - INBOUND_REPLY_MARGIN_MS;
    if (budget < MIN_INBOUND_DISPATCH_MS) {
      await this.#failed(id, 'The INVITE waited too long for a line to be handed to an engine', 'sip_inbound_late');
      return refuse(503, 'engine_unavailable', 'No time was left to hand the call to an engine');
    }
    try {
      const { streamToken } = await this.#options.dispatcher.dispatchBridged(
        spec,
        Math.min(budget, DISPATCH_TIMEOUT_MS),
      );
      return {
        ok: true,
        callId: id,
        organisationId,
        streamToken,
        sipConfigurationId: config.id,
        referEnabled: config.sip_refer_enabled,
        // Where a bridged transfer's new leg goes (REFER off): out by the number's own trunk.
        ...(!config.sip_refer_enabled && { trunk: trunkTarget(config, this.#options.keyRing) }),
      };
    } catch (error) {
      // The dispatcher finished the record FAILED already.
      if (error instanceof ApiError && error.code === 'unavailable')
        return refuse(503, 'engine_unavailable', error.message);
      throw error;
    }
  }

  /** Records the inbound call if a line is free: admission and the configuration's count under their locks. */
  async #recordInbound(
    id: string,
    config: RoutableConfiguration,
    agent: AgentRecord,
    offer: SipInboundOffer,
    spec: CallSpec,
  ): Promise<true | undefined> {
    return this.#options.sql.begin(async (tx) => {
      await admitCall(tx, config.organisation_id, this.#options.admission);
      if (!(await lineFree(tx, config))) return undefined;
      await createCall(tx, {
        id,
        organisationId: config.organisation_id,
        agent,
        roomName: roomNameFor(id),
        participantName: storable(offer.fromName) || storable(offer.from) || UNKNOWN_CALLER,
        phoneNumber: storable(offer.from) || null,
        callType: 'sip',
        callDirection: 'INBOUND',
        metaData: { sip: { sipCallId: offer.sipCallId, gatewayId: offer.gatewayId, source: offer.sourceAddress } },
        callingNumber: config.phone_number,
        source: 'inbound',
        maxDurationMs: spec.limits.maxDurationMs,
        status: 'QUEUED',
        sipConfigurationId: config.id,
      });
      return true as const;
    }) as Promise<true | undefined>;
  }

  /**
   * The OUTBOUND configuration an outbound call of `agentId` goes over — that of `callingNumber`, else one assigned to
   * the agent, else one of no agent — checked against the destination: 400 when there is none (spec document 2: "no
   * calling number or SIP configuration"), 403 when its callingScope blocks the destination.
   */
  async outboundConfiguration(
    organisationId: string,
    agentId: string,
    call: { callingNumber: string | undefined; participantNumber: string },
  ): Promise<RoutableConfiguration> {
    const sip = await findOutboundFor(this.#options.sql, organisationId, agentId, call.callingNumber);
    if (!sip)
      throw new ApiError(
        'invalid_state',
        call.callingNumber
          ? `callingNumber ${call.callingNumber} is neither one of the organisation's active numbers nor the number of an active OUTBOUND SIP configuration`
          : 'No calling number or SIP configuration: send callingNumber, give the agent a callingNumber, or add an active OUTBOUND SIP configuration (POST /sip-config)',
      );
    assertDestinationAllowed({
      from: sip.phone_number,
      to: call.participantNumber,
      scope: sip.calling_scope,
      allowedCountries: sip.allowed_countries,
    });
    return sip;
  }

  /**
   * Dispatches a recorded outbound call to an engine, then asks a gateway to dial it through the configuration's
   * trunk. 503 when no engine or no gateway takes it, 502 when the gateway refuses it; the record is FAILED then.
   */
  async launchOutbound(spec: CallSpec, config: RoutableConfiguration, to: string): Promise<void> {
    const { dispatcher, bus, keyRing } = this.#options;
    // The engine keeps the call for its media while the callee rings, plus the gateway's time to answer after.
    const mediaConnectMs = config.call_timeout_ms + ANSWER_TO_MEDIA_MS;
    const { streamToken } = await dispatcher.dispatchBridged({ ...spec, limits: { ...spec.limits, mediaConnectMs } });
    const request: SipDialRequest = {
      callId: spec.callId,
      organisationId: config.organisation_id,
      to,
      trunk: trunkTarget(config, keyRing),
      streamToken,
      ringTimeoutMs: config.call_timeout_ms,
      sipConfigurationId: config.id,
      referEnabled: config.sip_refer_enabled,
    };
    let reply;
    try {
      const answer = await bus.request(subjects.sipDial(), sipCodecs.dialRequest.encode(request), {
        timeoutMs: SIP_DIAL_TIMEOUT_MS,
      });
      reply = sipCodecs.dialReply.decode(answer.data);
    } catch (error) {
      await this.#failed(spec.callId, isBusError(error) ? error.code : String(error), 'sip_gateway_unavailable');
      throw new ApiError('unavailable', `The call could not be placed: ${NO_SIP_GATEWAY}`, { cause: error });
    }
    if (!reply.ok) {
      await this.#failed(spec.callId, `${reply.code}: ${reply.message}`, 'sip_dial_refused');
      throw new ApiError(
        reply.retryable ? 'unavailable' : 'upstream_failed',
        `The SIP gateway did not place the call: ${reply.message}`,
      );
    }
  }

  /** Tells the gateway holding the call's SIP leg to end it (CANCEL while ringing, BYE once answered). */
  hangUp(callId: string, reason: string): void {
    hangUpSipLeg(this.#options.bus, callId, reason);
  }

  async #failed(callId: string, detail: string, reason: string): Promise<void> {
    await finishCall(this.#options.sql, callId, {
      status: 'FAILED',
      outcome: 'failed',
      outcomeDetail: detail,
      reason,
      analyse: false,
    });
    this.#options.dispatcher.end(callId, reason);
    this.hangUp(callId, reason);
    this.#options.log?.('warn', 'SIP call not placed', { callId, reason, detail });
  }
}

/**
 * Tells the gateway holding a call's SIP leg to end it (CANCEL while ringing, BYE once answered): the end route,
 * the sweeper and a failed placement end SIP calls this way, as carrier-call-control.ts does at the carriers.
 * Nobody listening (no such leg, or a gateway that already ended it) is fine.
 */
export function hangUpSipLeg(bus: Bus, callId: string, reason: string): void {
  bus.publish(subjects.sipCallControl(callId), sipCodecs.control.encode({ type: 'hangup', reason }));
}

/** 409 when every one of the SIP configuration's maxConcurrentCalls is live (locks it for the transaction). */
export async function assertLineFree(tx: Queryable, config: RoutableConfiguration): Promise<void> {
  if (!(await lineFree(tx, config)))
    throw new ApiError(
      'limit_reached',
      `All ${config.max_concurrent_calls} lines of the SIP configuration for ${config.phone_number} are in use ` +
        '(its maxConcurrentCalls): wait for a call to end, or raise the limit',
    );
}

/** Whether one of the configuration's maxConcurrentCalls is free (locks the configuration for the transaction). */
export async function lineFree(tx: Queryable, config: RoutableConfiguration): Promise<boolean> {
  return (await lockAndCountLive(tx, config.id, QUEUED_HOLDS_LINE_MS)) < config.max_concurrent_calls;
}

/** Whether `address` is one of `sources` (addresses or CIDR blocks); an IPv4-mapped IPv6 address counts as IPv4. */
export function sourceAllowed(sources: readonly string[], address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const plain = mapped ? mapped[1]! : address;
  const family = isIP(plain);
  if (!family) return false;
  const list = new BlockList();
  for (const source of sources) {
    const [net, prefix] = source.split('/');
    const sourceFamily = isIP(net!);
    if (!sourceFamily) continue;
    const type = sourceFamily === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(net!, type);
    else list.addSubnet(net!, Number(prefix), type);
  }
  return list.check(plain, family === 4 ? 'ipv4' : 'ipv6');
}
