/**
 * Managed numbers (spec document 2, GET /telephony/managed/{organisationId}): numbers the service rents on its own
 * carrier-a account (PARLEY_CARRIER_A_SERVICE_AUTH_ID) for an organisation billed in India that has no carrier account
 * of its own. This file answers the status read: whether the organisation can rent them and by which route, what
 * it may use them for, where its business verification stands, its phone account, the prices of the rate card, and
 * the numbers it rents. Renting itself is not in the spec yet; numbers rented are phone_numbers with
 * metadata.source `managed`.
 */
import type { Principal } from '../auth/principal.ts';
import type { BillingCurrency } from '../billing/countries.ts';
import { rateCardFor } from '../billing/plan-catalogue.ts';
import type { Queryable } from '../db/database.ts';
import type { Carrier } from './carrier.ts';
import {
  INDIA_PROVISIONING,
  MANAGED_NUMBERS,
  SELF_SERVE_TELEPHONY,
  type TelephonyContext,
  type TelephonyOrganisation,
} from './context.ts';
import type { StoredIntegration } from './integration-repository.ts';
import { listActiveNumbers, type PhoneNumberRecord } from './phone-number-repository.ts';

/** The country managed numbers are offered in, and whose organisations may rent them. */
export const MANAGED_COUNTRY = 'IN';
/** The carrier whose account (the service's own) holds managed numbers. */
export const MANAGED_PROVIDER: Carrier = 'carrier-a';
/** metadata.source of a number rented by the service for the organisation. */
export const MANAGED_SOURCE = 'managed';
/**
 * Carriers whose integrations are accounts the customer holds itself. carrier-d is not one: its connection is the
 * organisation's India KYC profile under the service's reseller account.
 */
const OWN_ACCOUNT_CARRIERS: readonly Carrier[] = ['carrier-a', 'carrier-b', 'carrier-c', 'carrier-e'];

/**
 * Whether the organisation gets its numbers from the service itself: managed numbers are on for it and it is billed
 * in India, the only country they are offered in. Its carrier-a sync is refused (409): the managed route is its way.
 */
export function receivesManagedNumbers(organisation: TelephonyOrganisation): boolean {
  return (
    organisation.features.includes(MANAGED_NUMBERS) && organisation.billingCountry?.toUpperCase() === MANAGED_COUNTRY
  );
}

export const USE_CASE_IDS = ['TRANSACTIONAL', 'PROMOTIONAL', 'FINANCIAL'] as const;
export type UseCaseId = (typeof USE_CASE_IDS)[number];

export interface UseCase {
  id: UseCaseId;
  offered: boolean;
  label: string;
  example: string;
}

/**
 * What managed numbers may be used for. Indian rules (TRAI) keep promotional calls on the registered 140-series
 * telemarketing numbers and calls of banks, insurers and other regulated financial firms on the 1600-series, neither
 * of which the service rents: only transactional and service calls are offered.
 */
export const USE_CASES: readonly UseCase[] = [
  {
    id: 'TRANSACTIONAL',
    offered: true,
    label: 'Transactional and service calls',
    example: 'Appointment reminders, order and delivery updates, customer support',
  },
  {
    id: 'PROMOTIONAL',
    offered: false,
    label: 'Promotional calls',
    example: 'Offers and sales campaigns (need a registered 140-series telemarketing number)',
  },
  {
    id: 'FINANCIAL',
    offered: false,
    label: 'Calls of regulated financial firms',
    example: 'Bank, insurance or lending calls (need a 1600-series number)',
  },
];

/** A line of the rate card as the managed-numbers page shows it (spec document 1, Wallet and billing). */
export interface RateCardLine {
  key: 'number_rental_month' | 'phone_line_minute';
  label: string;
  unit: 'MONTH' | 'MINUTE';
  priceMinor: number;
  currency: string;
  tier: string | null;
  pulseSeconds: number | null;
  minimumSeconds: number | null;
  managedOnly: boolean;
  effectiveFrom: string | null;
}

/** Managed numbers are rented and priced in rupees (spec document 2: 50,000 paise a month, 50 paise a minute). */
export const MANAGED_CURRENCY: BillingCurrency = 'INR';
const MANAGED_LINES: ReadonlySet<string> = new Set(['number_rental_month', 'phone_line_minute']);

export type ManagedRoute = 'managed' | 'own_account' | 'india_kyc' | 'self_serve' | 'none';
export type UnavailableCode =
  | 'feature_disabled'
  | 'billing_country_missing'
  | 'outside_india'
  | 'own_carrier_account'
  | 'not_configured';
export type VerificationState = 'not_started' | 'in_progress' | 'approved' | 'rejected';

export interface ManagedStatus {
  available: boolean;
  route: ManagedRoute;
  planRequired: boolean;
  outsideIndia: boolean;
  country: string | null;
  useCases: readonly UseCase[];
  unavailable: { code: UnavailableCode; message: string } | null;
  verification: {
    required: boolean;
    state: VerificationState;
    source: Carrier | null;
    lastStep: string | null;
    nextAction: { code: string; message: string } | null;
  };
  phoneAccount: {
    provider: Carrier;
    status: 'not_opened' | 'active';
    serviceConfigured: boolean;
    activeNumbers: number;
  };
  prices: {
    currency: string;
    numberMonthlyMinor: number;
    phoneLineMinuteMinor: number;
    phoneLinePulseSeconds: number;
    phoneLineBlockMinor: number;
    paidFrom: 'organisation_wallet';
    rateCard: readonly RateCardLine[];
  };
  numbers: PhoneNumberRecord[];
}

export async function managedStatus(telephony: TelephonyContext, principal: Principal): Promise<ManagedStatus> {
  const { sql } = telephony;
  const organisation = await telephony.organisation(sql, principal.organisationId);
  const integrations = await telephony.integrations.listActive(sql, organisation.id);
  const ownAccount = integrations.some((i) => OWN_ACCOUNT_CARRIERS.includes(i.provider));
  const country = organisation.billingCountry?.toUpperCase() ?? null;
  const serviceConfigured = telephony.hasServiceAccount(MANAGED_PROVIDER);
  const unavailable = unavailableReason(organisation, country, ownAccount, serviceConfigured);
  const numbers = (await listActiveNumbers(sql, organisation.id)).filter((n) => n.metadata.source === MANAGED_SOURCE);
  return {
    available: unavailable === null,
    route: purchaseRoute(organisation, country, ownAccount, unavailable === null),
    // Managed numbers are billed from a plan's wallet; plans arrive with the billing issue, so none is held yet.
    planRequired: true,
    outsideIndia: country !== null && country !== MANAGED_COUNTRY,
    country,
    useCases: USE_CASES,
    unavailable,
    verification: verification(integrations.find((i) => i.provider === 'carrier-d')),
    phoneAccount: {
      provider: MANAGED_PROVIDER,
      status: numbers.length ? 'active' : 'not_opened',
      serviceConfigured,
      activeNumbers: numbers.length,
    },
    prices: await managedPrices(sql, organisation.id),
    numbers,
  };
}

/** Why the organisation cannot rent managed numbers now, the first reason that applies; null when it can. */
function unavailableReason(
  organisation: TelephonyOrganisation,
  country: string | null,
  ownAccount: boolean,
  serviceConfigured: boolean,
): ManagedStatus['unavailable'] {
  if (!organisation.features.includes(MANAGED_NUMBERS)) {
    return { code: 'feature_disabled', message: 'Managed numbers are not enabled for this organisation' };
  }
  if (country === null) {
    return {
      code: 'billing_country_missing',
      message: 'Set the billing country first: managed numbers are offered to organisations billed in India',
    };
  }
  if (country !== MANAGED_COUNTRY) {
    return {
      code: 'outside_india',
      message: `Managed numbers are offered to organisations billed in India; this one is billed in ${country}`,
    };
  }
  if (ownAccount) {
    return {
      code: 'own_carrier_account',
      message: 'The organisation has a carrier account of its own connected: get numbers through it',
    };
  }
  if (!serviceConfigured) {
    return {
      code: 'not_configured',
      message: 'This server has no carrier-a account of its own to rent numbers on (PARLEY_CARRIER_A_SERVICE_AUTH_ID)',
    };
  }
  return null;
}

/** How the organisation gets numbers, the first that applies. */
function purchaseRoute(
  organisation: TelephonyOrganisation,
  country: string | null,
  ownAccount: boolean,
  managed: boolean,
): ManagedRoute {
  if (ownAccount) return 'own_account';
  if (managed) return 'managed';
  if (country === MANAGED_COUNTRY && organisation.features.includes(INDIA_PROVISIONING)) return 'india_kyc';
  if (organisation.features.includes(SELF_SERVE_TELEPHONY)) return 'self_serve';
  return 'none';
}

/**
 * The business verification Indian numbers need: the India KYC of the organisation's carrier-d profile (its config
 * keys kyc_status and last_kyc_step), when it has one.
 */
function verification(india: StoredIntegration | undefined): ManagedStatus['verification'] {
  const status = typeof india?.config.kyc_status === 'string' ? india.config.kyc_status.toLowerCase() : null;
  const lastStep =
    [india?.config.last_kyc_step, india?.config.kyc_step].find((v): v is string => typeof v === 'string' && v !== '') ??
    null;
  const state: VerificationState =
    status === null
      ? 'not_started'
      : ['approved', 'verified', 'completed'].includes(status)
        ? 'approved'
        : ['rejected', 'failed'].includes(status)
          ? 'rejected'
          : 'in_progress';
  const nextAction: Record<VerificationState, { code: string; message: string } | null> = {
    not_started: {
      code: 'start_verification',
      message: 'Verify the business: start the India KYC wizard (POST /telephony/carrier-d/kyc/register)',
    },
    in_progress: {
      code: 'continue_verification',
      message: `Continue the India KYC wizard${lastStep ? ` after step ${lastStep}` : ''}`,
    },
    rejected: {
      code: 'resubmit_verification',
      message: 'The business verification was rejected: correct the details and submit the KYC wizard again',
    },
    approved: null,
  };
  return { required: true, state, source: india ? 'carrier-d' : null, lastStep, nextAction: nextAction[state] };
}

/** The managed lines of the rate card in force now, at the organisation's tier (billing/plan-catalogue.ts). */
async function managedPrices(sql: Queryable, organisationId: string): Promise<ManagedStatus['prices']> {
  const card = await rateCardFor(sql, organisationId, new Date(), MANAGED_CURRENCY);
  const lines: RateCardLine[] = card.lines
    .filter((line) => MANAGED_LINES.has(line.key))
    .map((line) => ({
      key: line.key as RateCardLine['key'],
      label: line.label,
      unit: line.unit as RateCardLine['unit'],
      priceMinor: line.priceMinor,
      currency: line.currency,
      tier: line.tier,
      pulseSeconds: line.unit === 'MINUTE' ? line.pulseSeconds : null,
      minimumSeconds: line.unit === 'MINUTE' ? line.minimumSeconds : null,
      managedOnly: line.managedOnly,
      effectiveFrom: line.effectiveFrom,
    }));
  const number = lines.find((line) => line.key === 'number_rental_month');
  const phoneLine = lines.find((line) => line.key === 'phone_line_minute');
  const lineMinor = phoneLine?.priceMinor ?? 0;
  const pulse = phoneLine?.pulseSeconds ?? 60;
  return {
    currency: MANAGED_CURRENCY,
    numberMonthlyMinor: number?.priceMinor ?? 0,
    phoneLineMinuteMinor: lineMinor,
    phoneLinePulseSeconds: pulse,
    phoneLineBlockMinor: (lineMinor * pulse) / 60,
    paidFrom: 'organisation_wallet',
    rateCard: lines,
  };
}
