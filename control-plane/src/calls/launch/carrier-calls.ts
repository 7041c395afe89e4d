/**
 * The carrier's side of a call in progress (docs/architecture.md §3 steps 2 and 6): its webhooks — the answer request that
 * opens the media stream, the status callbacks that move the record, the inbound voice webhook that starts an
 * INBOUND call — and what Parley asks of the carrier while the call runs: hang up, transfer.
 *
 * Every webhook is checked against the carrier account of the call's organisation first (carrier-voice webhook
 * routes); these methods take requests already known to be the carrier's.
 */
import { findAgent } from '../../agents/repository.ts';
import { agentRecord } from '../../agents/records.ts';
import { isVoiceCarrier, voiceCarriers, type CarrierDocument } from '../../carriers/voice-carriers.ts';
import type { VoiceAccount, VoiceCarrierName } from '../../carriers/voice-carrier.ts';
import type { VoiceAccounts } from '../../carriers/voice-accounts.ts';
import type { Sql } from '../../db/database.ts';
import { newId } from '../../db/ids.ts';
import type { KeyRing } from '../../secrets/key-ring.ts';
import { findActiveNumberByValue } from '../../telephony/phone-number-repository.ts';
import { admitCall, assertMayCall, type AdmissionLimits } from '../../billing/call-admission.ts';
import { meterCall } from '../../billing/metering.ts';
import { ApiError } from '../../errors.ts';
import { LIVE_STATUSES, roomNameFor, type CallRow } from '../repository/call-records.ts';
import { createCall, finishCall, markAnswered } from '../repository/call-repository.ts';
import {
  findCall,
  findCallByCarrierRef,
  mergeCallMeta,
  META_CARRIER_CALL,
  META_TRANSFER_TO,
  takeStreamUrl,
} from '../repository/launch-repository.ts';
import { buildCallSpec } from './call-spec.ts';
import type { EngineDispatcher, PlacementLog } from './engine-dispatch.ts';

/** What a refused caller hears. */
export const REFUSALS = {
  unknownNumber: 'Sorry, this number is not in service. Goodbye.',
  unassigned: 'Sorry, this number is not taking calls at the moment. Goodbye.',
  noAgent: 'Sorry, no one is available to take your call right now. Goodbye.',
  unfunded: 'Sorry, this line cannot take calls at the moment. Goodbye.',
  allLinesBusy: 'Sorry, all our lines are busy right now. Please call again later. Goodbye.',
  noEngine: 'Sorry, we cannot take your call right now. Please try again later. Goodbye.',
  badRequest: 'Sorry, this call cannot be taken. Goodbye.',
} as const;

export interface CarrierCallsOptions {
  sql: Sql;
  accounts: VoiceAccounts;
  dispatcher: EngineDispatcher;
  publicUrl: string;
  keyRing: KeyRing | undefined;
  /** How many calls an organisation may have live at once (billing/call-admission.ts). */
  admission: AdmissionLimits;
  log?: PlacementLog;
}

export class CarrierCalls {
  readonly #options: CarrierCallsOptions;

  constructor(options: CarrierCallsOptions) {
    this.#options = options;
  }

  get accounts(): VoiceAccounts {
    return this.#options.accounts;
  }

  /** The record of a call by id, whatever its organisation (webhooks name calls by id only). */
  async callById(callId: string): Promise<CallRow | undefined> {
    return findCall(this.#options.sql, callId);
  }

  /** The call the carrier knows as `callRef` (its CallUUID, CallSid), the newest should ids repeat across accounts. */
  async callByCarrierRef(carrier: VoiceCarrierName, callRef: string): Promise<CallRow | undefined> {
    return findCallByCarrierRef(this.#options.sql, carrier, callRef);
  }

  /**
   * The answer of an outbound call: the stream URL kept at dispatch, taken once (removed from metaData). A call that
   * has ended, or whose stream was already taken, is hung up. The carrier's id of the call, when the answer request
   * gives it (carrier-a's CallUUID), replaces the one of the create request.
   */
  async answerOutbound(
    call: CallRow,
    carrier: VoiceCarrierName,
    params: Record<string, string>,
  ): Promise<CarrierDocument> {
    const voice = voiceCarriers[carrier];
    const callRef = voice.callRefOf(params);
    if (voice.answeredByMachine?.(params)) {
      // Answering-machine detection: a voicemail box, not the person. The call ends here, outcome voicemail.
      await markAnswered(this.#options.sql, call.id);
      const finished = await finishCall(this.#options.sql, call.id, {
        outcome: 'voicemail',
        reason: 'answering_machine',
        analyse: false,
      });
      if (finished) this.#options.dispatcher.end(call.id, 'answering_machine');
      return voice.refusal('');
    }
    const url = await takeStreamUrl(this.#options.sql, call.id, callRef);
    if (!url) return voice.refusal('');
    await markAnswered(this.#options.sql, call.id);
    return voice.answer(url, call.id);
  }

  /** A status callback of a call: answered → IN_PROGRESS; an end finishes the record and the engine's session. */
  async progress(call: CallRow, carrier: VoiceCarrierName, params: Record<string, string>): Promise<void> {
    const progress = voiceCarriers[carrier].progress(params);
    if (progress.kind === 'answered') {
      await markAnswered(this.#options.sql, call.id);
      return;
    }
    if (progress.kind !== 'ended') return;
    // A call the carrier calls completed that nobody picked up rang out (read again: the answer may have just come).
    const answered = (await findCall(this.#options.sql, call.id))?.answered_at;
    const outcome = progress.outcome === 'completed' && !answered ? 'no_answer' : progress.outcome;
    const finished = await this.#options.sql.begin(async (tx) => {
      const done = await finishCall(tx, call.id, {
        status: progress.status,
        outcome,
        reason: progress.reason,
        outcomeDetail: progress.detail,
        analyse: outcome === 'completed' || outcome === 'voicemail',
      });
      // An engine that died with the call never sends `ended`: the carrier's end bills an answered call.
      if (done) await meterCall(tx, call.id);
      return done;
    });
    // The carrier ended the call: the engine's session (if any still runs) hangs up too.
    if (finished?.wasLive)
      this.#options.dispatcher.end(
        call.id,
        progress.reason === 'carrier_completed' ? 'caller_hangup' : progress.reason,
      );
  }

  /** Starts an inbound call on an engine and answers the document that streams it there (or a polite refusal). */
  async answerInbound(
    carrier: VoiceCarrierName,
    organisationId: string,
    call: { from: string; to: string; callRef: string },
  ): Promise<CarrierDocument> {
    const { sql } = this.#options;
    const voice = voiceCarriers[carrier];
    const number = await findActiveNumberByValue(sql, organisationId, call.to, carrier);
    if (!number?.agent_id) return voice.refusal(REFUSALS.unassigned);
    const row = await findAgent(sql, organisationId, number.agent_id);
    const agent = row && agentRecord(row);
    if (!agent || !agent.isActive || agent.agentType !== 'VOICE') return voice.refusal(REFUSALS.noAgent);
    try {
      await assertMayCall(sql, organisationId);
    } catch {
      return voice.refusal(REFUSALS.unfunded);
    }
    const id = newId();
    const spec = buildCallSpec({
      callId: id,
      organisationId,
      agent,
      keyRing: this.#options.keyRing,
      direction: 'INBOUND',
      participant: { phoneNumber: call.from },
    });
    try {
      await sql.begin(async (tx) => {
        await admitCall(tx, organisationId, this.#options.admission);
        await createCall(tx, {
          id,
          organisationId,
          agent,
          roomName: roomNameFor(id),
          participantName: call.from,
          phoneNumber: call.from,
          callType: 'sip',
          callDirection: 'INBOUND',
          metaData: { carrier, [META_CARRIER_CALL]: call.callRef },
          callingNumber: call.to,
          source: 'inbound',
          maxDurationMs: spec.limits.maxDurationMs,
          status: 'QUEUED',
        });
      });
    } catch (error) {
      // Every line the organisation's plan pays for is taken: the caller is told, nothing is recorded.
      if (error instanceof ApiError && error.code === 'payment_required') return voice.refusal(REFUSALS.allLinesBusy);
      throw error;
    }
    let streamUrl: string;
    try {
      streamUrl = await this.#options.dispatcher.dispatch(spec, voice.media);
    } catch {
      return voice.refusal(REFUSALS.noEngine);
    }
    // Answered at once: the stream URL is never kept.
    await markAnswered(sql, id);
    return voice.answer(streamUrl, id);
  }

  /**
   * Ends the call at its carrier when it may still be up there: after the engine ended its session (an agent that
   * hangs up, a time limit) or the end route. A carrier that ends calls with their stream needs nothing; one whose
   * stream keeps the call alive (carrier-a) must be told. Failures are logged: the record is final either way.
   */
  async hangUp(callId: string): Promise<void> {
    const call = await this.callById(callId);
    const target = call && (await this.#carrierCall(call));
    if (!target) return;
    try {
      await voiceCarriers[target.carrier].hangup(target.account, target.callRef);
    } catch (error) {
      this.#options.log?.('warn', 'the carrier did not hang up the call', {
        callId,
        carrier: target.carrier,
        error: String(error),
      });
    }
  }

  /** Moves a live call's caller to `to` through the carrier; false when the carrier cannot or refused. */
  async transfer(callId: string, to: string): Promise<boolean> {
    const call = await this.callById(callId);
    if (!call || call.ended_at || !call.call_status || !LIVE_STATUSES.includes(call.call_status)) return false;
    const target = await this.#carrierCall(call);
    if (!target) return false;
    const { sql } = this.#options;
    await mergeCallMeta(sql, callId, { [META_TRANSFER_TO]: to });
    try {
      const dialUrl = `${this.#options.publicUrl.replace(/\/+$/, '')}/webhooks/${target.carrier}/dial/${callId}`;
      await voiceCarriers[target.carrier].transfer(target.account, target.callRef, to, dialUrl);
      return true;
    } catch (error) {
      this.#options.log?.('warn', 'the carrier did not transfer the call', {
        callId,
        carrier: target.carrier,
        to,
        error: String(error),
      });
      return false;
    }
  }

  /** The document that dials a transferred call's new number (carrier-a fetches it). */
  async dialDocument(call: CallRow, carrier: VoiceCarrierName): Promise<CarrierDocument> {
    const to = call.meta_data[META_TRANSFER_TO];
    const voice = voiceCarriers[carrier];
    return typeof to === 'string' ? voice.dial(to) : voice.refusal('');
  }

  async #carrierCall(
    call: CallRow,
  ): Promise<{ carrier: VoiceCarrierName; account: VoiceAccount; callRef: string } | undefined> {
    const carrier = call.meta_data.carrier;
    const callRef = call.meta_data[META_CARRIER_CALL];
    if (typeof carrier !== 'string' || !isVoiceCarrier(carrier) || typeof callRef !== 'string' || !callRef)
      return undefined;
    const account = await this.#options.accounts.find(this.#options.sql, call.organisation_id, carrier);
    return account && { carrier, account, callRef };
  }
}
