/**
 * The parts of Parley that place and answer phone calls, built once per control-plane process and shared by the
 * routes (POST /voice/session, /voice/callback, the carrier webhooks) and the background jobs (the scheduler, the
 * carrier hang-up after an engine ends a call, transfers asked for by engines).
 */
import type { Bus } from '@parley/engine/bus';
import type { Sql } from '../../db/database.ts';
import type { Carrier } from '../../telephony/carrier.ts';
import type { KeyRing } from '../../secrets/key-ring.ts';
import { IntegrationStore } from '../../telephony/integration-repository.ts';
import { CarrierCalls } from './carrier-calls.ts';
import type { PlacementLog } from './engine-dispatch.ts';
import { CallPlacement } from './placement.ts';
import type { SipCalls } from './sip-calls.ts';
import { VoiceAccounts } from '../../carriers/voice-accounts.ts';
import type { AdmissionLimits } from '../../billing/call-admission.ts';

export interface PhoneCalls {
  placement: CallPlacement;
  carrierCalls: CarrierCalls;
  /** Calls over SIP trunks (the SIP gateway's INVITEs, dials and hang-ups). */
  sipCalls: SipCalls;
}

export interface PhoneCallsOptions {
  sql: Sql;
  bus: Bus;
  /** PARLEY_PUBLIC_URL: where carriers reach the webhooks. */
  publicUrl: string;
  carrierApiUrls?: Partial<Record<Carrier, string | undefined>>;
  keyRing: KeyRing | undefined;
  /** How many calls an organisation may have live at once (billing/call-admission.ts). */
  admission: AdmissionLimits;
  log?: PlacementLog;
}

export function createPhoneCalls(options: PhoneCallsOptions): PhoneCalls {
  const accounts = new VoiceAccounts(new IntegrationStore(options.keyRing), options.carrierApiUrls);
  const placement = new CallPlacement({ ...options, accounts });
  const carrierCalls = new CarrierCalls({
    sql: options.sql,
    accounts,
    dispatcher: placement.dispatcher,
    publicUrl: options.publicUrl,
    keyRing: options.keyRing,
    admission: options.admission,
    log: options.log,
  });
  return { placement, carrierCalls, sipCalls: placement.sip };
}
