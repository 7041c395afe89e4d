/**
 * One carrier, one module: each carrier's folder (carriers/<carrier>/) holds its REST client (api.ts), its voice
 * side (voice.ts: calls, webhooks, status mapping), its number management (numbers.ts: connect, sync, purchase… on
 * the shared skeleton of telephony/account-sync.ts) and its wire types, and exports them through index.ts as one
 * CarrierModule. carriers.ts lists the modules; nothing outside carriers/ needs to switch on a carrier's name to
 * reach one of them.
 */
import type { CarrierAccount, Carrier } from '../telephony/carrier.ts';
import type { TelephonyContext } from '../telephony/context.ts';
import type { StoredIntegration } from '../telephony/integrations.ts';
import type { VoiceCarrier } from './voice-carrier.ts';

export interface CarrierModule<Numbers = unknown> {
  readonly name: Carrier;
  /** Placing and answering calls; absent for a carrier Parley only buys numbers from (carrier-d). */
  readonly voice?: VoiceCarrier;
  /** The carrier's number management (connect, sync, search, purchase, KYC… as the carrier offers them). */
  numbers(telephony: TelephonyContext): Numbers;
  /** The account behind a stored integration, for the work every carrier shares (routing a number on assignment). */
  account(telephony: TelephonyContext, integration: StoredIntegration): CarrierAccount;
}
