/**
 * GET /telephony/overview (spec document 2): what the telephony page of a dashboard needs in one read. The wallet
 * is shown only to keys that also hold wallet:read, the rates only to keys holding billing:read.
 */
import type { Principal } from '../auth/principal.ts';
import { SELF_SERVE_TELEPHONY, type TelephonyContext } from './context.ts';
import { integrationRecord, type IntegrationRecord } from './integration-repository.ts';
import { listActiveNumbers, type PhoneNumberRecord } from './phone-number-repository.ts';
import { readWallet, type WalletSummary } from '../wallet/wallet.ts';
import { readBillingProfile } from '../billing/billing-account-repository.ts';
import { billingConfig } from '../billing/billing-config.ts';

/** Billing country whose payments go through the second (India) payment processor. */
const PROCESSOR_COUNTRY = 'IN';

export interface TelephonyRates {
  /** USD per minute of AI phone call: the organisation's pay-as-you-go rate (billing config, from the rate card). */
  baseRatePerMinute: number | null;
  /**
   * Per-minute rates by country and carrier, e.g. { IN: { 'carrier-d': 0.02 } }. Empty: the rate card prices calls
   * the same whatever the country or carrier.
   */
  countryProviderRates: Record<string, Record<string, number>>;
}

export interface TelephonyOverview {
  featureEnabled: boolean;
  processorEnabled: boolean;
  paid: boolean;
  wallet: WalletSummary | null;
  rates: TelephonyRates | null;
  integrations: IntegrationRecord[];
  numbers: PhoneNumberRecord[];
}

export async function telephonyOverview(telephony: TelephonyContext, principal: Principal): Promise<TelephonyOverview> {
  const { sql } = telephony;
  const organisation = await telephony.organisation(sql, principal.organisationId);
  const wallet = await readWallet(sql, organisation.id);
  const integrations = await telephony.integrations.listActive(sql, organisation.id);
  return {
    featureEnabled: organisation.features.includes(SELF_SERVE_TELEPHONY),
    processorEnabled: organisation.billingCountry?.toUpperCase() === PROCESSOR_COUNTRY,
    paid: wallet?.hasPaid ?? false,
    wallet:
      principal.scopes.includes('wallet:read') && wallet
        ? { balance: wallet.balance, currency: wallet.currency, hasPaid: wallet.hasPaid }
        : null,
    rates: principal.scopes.includes('billing:read') ? await telephonyRates(telephony, organisation.id) : null,
    integrations: integrations.map(integrationRecord),
    numbers: await listActiveNumbers(sql, organisation.id),
  };
}

async function telephonyRates(telephony: TelephonyContext, organisationId: string): Promise<TelephonyRates> {
  const profile = await readBillingProfile(telephony.sql, organisationId);
  const config = profile && (await billingConfig(telephony.sql, profile));
  return { baseRatePerMinute: config?.ratePerMinute ?? null, countryProviderRates: {} };
}
