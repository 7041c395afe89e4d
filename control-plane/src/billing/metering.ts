/**
 * Metering calls (issue 14, item 2): a call that ended answered gets one usage record and one wallet debit, in the
 * transaction that applies its end — the engine's `ended` event (calls/repository/call-event-store.ts), the
 * sweeper's finalisation, the end route, or the carrier's report that the call ended. Whichever comes first
 * meters; the record's key `call:<callId>` (usage_records.idempotency_key) makes every later end change nothing,
 * however concurrent, since each runs under the call's row lock and the key is unique.
 *
 * Price (rate card line ai_phone_call_minute, in force when the call was answered): billed seconds are the duration
 * rounded up to whole pulses, never under the line's minimum (rate-card.ts billedSeconds). Pay-as-you-go
 * (LEGACY_USD) pays from the USD wallet at the organisation's ratePerMinute (billing_accounts.rate_per_minute_e4,
 * else the STARTER USD line), rounded up to a whole cent; plan billing (WALLET) pays from the plan wallet of the
 * billing country's currency at the plan tier's price, exactly (4 decimals). A wallet that cannot pay leaves the record unpaid:
 * settlement.ts pays it at the next credit, and until then the organisation cannot place calls. A call over a SIP
 * configuration adds the configuration's customer surcharge for its direction to the per-minute rate.
 */
import type { Queryable } from '../db/database.ts';
import type { WalletKind } from '../wallet/ledger-types.ts';
import { findCallToMeter, markCallBilled, type BillingTerms } from './metering-repository.ts';
import { billedSeconds, chargeE4, rateLineAt, type RateLine, type Tier } from './rate-card.ts';
import { currencyOfCountry } from './countries.ts';
import { chargeUsage } from './settlement.ts';
import { insertUsage, type UsageRecord } from './usage-repository.ts';

/** The rate-card line a phone call is priced by. */
export const CALL_RATE_LINE = 'ai_phone_call_minute';
const MS_PER_SECOND = 1000;

export type MeterOutcome =
  /** Recorded; `paid` false when the wallet could not pay it (it stays owed). */
  | { status: 'metered'; usage: UsageRecord; paid: boolean }
  /** An earlier end of the call metered it already. */
  | { status: 'duplicate' }
  /** Never answered: nothing to bill. */
  | { status: 'not_answered' }
  /** The rate card has no price for the organisation's currency and tier: nothing recorded. */
  | { status: 'unpriced'; currency: string; tier: Tier }
  | { status: 'unknown_call' };

export interface CallEndFacts {
  /** The engine's own measure of the call, ms (its `ended` event); other ends use the record's callDuration. */
  engineDurationMs?: number;
}

/** Meters the call once, in the caller's transaction (which has applied the call's end). */
export async function meterCall(tx: Queryable, callId: string, end: CallEndFacts = {}): Promise<MeterOutcome> {
  const call = await findCallToMeter(tx, callId);
  if (!call) return { status: 'unknown_call' };
  if (call.isBilled) return { status: 'duplicate' };
  const engineMs = end.engineDurationMs ?? 0;
  if (!call.answeredAt && !(engineMs > 0)) return { status: 'not_answered' };
  // A second begun is a second used: the pulse rounding then applies to whole seconds.
  const durationSeconds = Math.ceil(Math.max(0, end.engineDurationMs ?? call.durationMs ?? 0) / MS_PER_SECOND);
  const pricing = await callPricing(tx, call.terms, call.answeredAt ?? call.createdAt);
  if ('unpriced' in pricing) return { status: 'unpriced', currency: pricing.currency, tier: pricing.tier };
  const { line, wallet } = pricing;
  // A SIP configuration's surcharge for the call's direction is part of its per-minute price (docs/architecture.md §12).
  const rateE4 = pricing.rateE4 + call.surchargePerMinuteE4;
  const seconds = billedSeconds(durationSeconds, line.pulseSeconds, line.minimumSeconds);
  const usage = await insertUsage(tx, {
    organisationId: call.organisationId,
    voiceSessionId: call.id,
    roomName: call.roomName,
    callDirection: call.callDirection,
    usageType: 'VOICE_CALL',
    durationSeconds,
    billedSeconds: seconds,
    messageCount: 0,
    rateE4,
    totalE4: chargeE4({ unit: 'MINUTE', priceE4: rateE4 }, seconds, wallet),
    currency: line.currency,
    wallet,
    startTime: call.answeredAt ?? call.createdAt,
    endTime: call.endedAt,
    idempotencyKey: `call:${call.id}`,
  });
  if (!usage) return { status: 'duplicate' };
  const paid = await chargeUsage(tx, usage);
  await markCallBilled(tx, call.id);
  return { status: 'metered', usage, paid };
}

type CallPricing =
  | { line: RateLine; rateE4: number; wallet: WalletKind }
  | { unpriced: true; currency: string; tier: Tier };

async function callPricing(tx: Queryable, terms: BillingTerms, at: Date): Promise<CallPricing> {
  if (terms.billingModel === 'WALLET') {
    // The plan wallet of the billing country's currency is the one that pays (and the one callPermission reads).
    const currency = currencyOfCountry(terms.billingCountry);
    const tier = terms.plan?.tier ?? 'STARTER';
    const line = await rateLineAt(tx, { key: CALL_RATE_LINE, currency, tier, at });
    return line ? { line, rateE4: line.priceE4, wallet: 'PLAN_WALLET' } : { unpriced: true, currency, tier };
  }
  // Pay-as-you-go wallets are in US dollars (one opened in another currency is priced by that currency's line).
  const currency = terms.walletCurrency ?? 'USD';
  const line = await rateLineAt(tx, { key: CALL_RATE_LINE, currency, tier: 'STARTER', at });
  if (!line) return { unpriced: true, currency, tier: 'STARTER' };
  const rateE4 = currency === 'USD' && terms.ratePerMinuteE4 !== null ? terms.ratePerMinuteE4 : line.priceE4;
  return { line, rateE4, wallet: 'WALLET' };
}

/**
 * A call's recording, once stored (the engine's `recording` event): one RECORDING usage record keyed
 * `recording:<callId>`, in the wallet the organisation pays from. The rate card (spec document 1) has no line for
 * recordings, so they are included in the call's price: the record shows the usage at a price of 0 and nothing is
 * debited. A line added to the card later would price it here.
 */
export async function meterRecording(tx: Queryable, callId: string): Promise<MeterOutcome> {
  const call = await findCallToMeter(tx, callId);
  if (!call) return { status: 'unknown_call' };
  const wallet: WalletKind = call.terms.billingModel === 'WALLET' ? 'PLAN_WALLET' : 'WALLET';
  const currency =
    wallet === 'PLAN_WALLET' ? currencyOfCountry(call.terms.billingCountry) : (call.terms.walletCurrency ?? 'USD');
  const usage = await insertUsage(tx, {
    organisationId: call.organisationId,
    voiceSessionId: call.id,
    roomName: call.roomName,
    callDirection: call.callDirection,
    usageType: 'RECORDING',
    durationSeconds: Math.ceil(Math.max(0, call.durationMs ?? 0) / MS_PER_SECOND),
    billedSeconds: 0,
    messageCount: 0,
    rateE4: 0,
    totalE4: 0,
    currency,
    wallet,
    startTime: call.answeredAt ?? call.createdAt,
    endTime: call.endedAt,
    idempotencyKey: `recording:${call.id}`,
  });
  if (!usage) return { status: 'duplicate' };
  return { status: 'metered', usage, paid: await chargeUsage(tx, usage) };
}
