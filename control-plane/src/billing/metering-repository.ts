/** What metering reads of a call and of its organisation's billing (billing/metering.ts), and the call's billed mark. */
import type { Queryable } from '../db/database.ts';
import type { Tier } from './rate-card.ts';

/** A call as metering reads it, with how its organisation pays (one query: it runs at every call's end). */
export interface CallToMeter {
  id: string;
  organisationId: string;
  roomName: string;
  callDirection: 'INBOUND' | 'OUTBOUND';
  answeredAt: Date | null;
  createdAt: Date;
  endedAt: Date | null;
  /** ms, as the end that finished the call measured it. */
  durationMs: number | null;
  isBilled: boolean;
  terms: BillingTerms;
  /**
   * The per-minute surcharge of the SIP configuration the call went over, for its direction (minor units ×10⁴ of
   * the currency that pays, like the rate); 0 for calls over no SIP configuration.
   */
  surchargePerMinuteE4: number;
}

/** How an organisation pays for usage: its billing model, pay-as-you-go rate, plan and wallets' currencies. */
export interface BillingTerms {
  billingModel: 'LEGACY_USD' | 'WALLET';
  /** Pay-as-you-go price per minute, US cents e4; null: the rate card's STARTER USD line. */
  ratePerMinuteE4: number | null;
  /** The plan of the organisation's live subscription (not CANCELLED), if any. */
  plan: { tier: Tier; currency: string } | null;
  walletCurrency: string | null;
  /** The organisation's billing country: plan billing runs in its currency (countries.ts currencyOfCountry). */
  billingCountry: string | null;
}

export async function findCallToMeter(tx: Queryable, callId: string): Promise<CallToMeter | undefined> {
  const [row] = await tx<
    {
      id: string;
      organisation_id: string;
      room_name: string;
      call_direction: 'INBOUND' | 'OUTBOUND';
      answered_at: Date | null;
      created_at: Date;
      ended_at: Date | null;
      call_duration: number | null;
      is_billed: boolean;
      billing_model: 'LEGACY_USD' | 'WALLET' | null;
      rate_per_minute_e4: string | null;
      plan_tier: Tier | null;
      plan_currency: string | null;
      wallet_currency: string | null;
      billing_country: string | null;
      sip_surcharge_e4: string | null;
    }[]
  >`
    select c.id, c.organisation_id, c.room_name, c.call_direction, c.answered_at, c.created_at, c.ended_at,
           c.call_duration, c.is_billed, b.billing_model, b.rate_per_minute_e4, p.tier as plan_tier,
           p.currency as plan_currency,
           (select currency from ledger_accounts where organisation_id = c.organisation_id and kind = 'WALLET') as wallet_currency,
           o.billing_country,
           case c.call_direction when 'INBOUND' then sc.customer_inbound_surcharge_per_min_minor_e4
                                 else sc.customer_outbound_surcharge_per_min_minor_e4 end as sip_surcharge_e4
      from call_records c
      join organisations o on o.id = c.organisation_id
      left join billing_accounts b on b.organisation_id = c.organisation_id
      left join billing_subscriptions s on s.organisation_id = c.organisation_id and s.status <> 'CANCELLED'
      left join billing_plans p on p.id = s.plan_id
      left join sip_configurations sc on sc.id = c.sip_configuration_id
     where c.id = ${callId}`;
  return (
    row && {
      id: row.id,
      organisationId: row.organisation_id,
      roomName: row.room_name,
      callDirection: row.call_direction,
      answeredAt: row.answered_at,
      createdAt: row.created_at,
      endedAt: row.ended_at,
      durationMs: row.call_duration,
      isBilled: row.is_billed,
      terms: {
        billingModel: row.billing_model ?? 'LEGACY_USD',
        ratePerMinuteE4: row.rate_per_minute_e4 == null ? null : Number(row.rate_per_minute_e4),
        plan: row.plan_tier && row.plan_currency ? { tier: row.plan_tier, currency: row.plan_currency } : null,
        walletCurrency: row.wallet_currency,
        billingCountry: row.billing_country,
      },
      surchargePerMinuteE4: row.sip_surcharge_e4 == null ? 0 : Number(row.sip_surcharge_e4),
    }
  );
}

/** The call has its usage record (paid or not): isBilled, billedAt. */
export async function markCallBilled(tx: Queryable, callId: string): Promise<void> {
  await tx`update call_records set is_billed = true, billed_at = coalesce(billed_at, now()) where id = ${callId}`;
}
