/**
 * Route schemas of /billing (spec document 2, Wallet and billing): billing identity, country, config, status and
 * usage; plans, rate card, plan balance and plan changes are in plan-schemas.ts, top-ups and payments elsewhere.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import {
  Envelope,
  Id,
  NullableString,
  NullableTimestamp,
  StringEnum,
  Timestamp,
  authErrors,
  errors,
} from '../../../http/schemas.ts';
import { MAX_PAGE_LIMIT } from '../../../billing/query-values.ts';
import { USAGE_TYPES } from '../../../billing/usage-repository.ts';
import { SIGNUP_CREDIT_DAYS } from '../../../billing/billing-country.ts';
import { OrganisationParams, PageFields, Pagination } from '../wallet/schemas.ts';

export const TAGS = ['billing'];
export const Nullable = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'] });
export const NullableNumber = Type.Unsafe<number | null>({ type: ['number', 'null'] });
export const NullableInteger = Type.Unsafe<number | null>({ type: ['integer', 'null'] });
export const OptionalOrganisation = Type.Object(
  { organisationId: Type.Optional(Id("Organisation id; default the key's own")) },
  { additionalProperties: false },
);
export type OptionalOrganisation = Static<typeof OptionalOrganisation>;
export const BillingModel = StringEnum(['WALLET', 'LEGACY_USD'] as const, {
  description: 'WALLET: plan billing (a plan wallet of grants); LEGACY_USD: pay-as-you-go US dollar wallet',
});
export const Tier = StringEnum(['STARTER', 'PRO'] as const);

export const billingDetails = {
  tags: TAGS,
  summary: 'The billing identity on invoices',
  params: OrganisationParams,
  response: {
    200: Envelope(
      Type.Object({
        billingCountry: NullableString,
        companyName: NullableString,
        companyRegistrationNumber: NullableString,
        addressLine1: NullableString,
        addressLine2: NullableString,
        city: NullableString,
        state: NullableString,
        postalCode: NullableString,
        gstin: NullableString,
        mobile: NullableString,
      }),
    ),
    ...authErrors,
    ...errors(404),
  },
};

const statusFields = {
  canMakeCalls: Type.Boolean({
    description:
      'Active, not suspended, no unpaid usage, and at least 1.00 to spend (plan billing: in the plan wallet)',
  }),
  canSendMessage: Type.Boolean({ description: 'As canMakeCalls, with any money to spend' }),
  isActive: Type.Boolean(),
  isSuspended: Type.Boolean(),
  balance: Type.Number({ description: 'Pay-as-you-go wallet, US dollars (0 before it exists)' }),
  isLowBalance: Type.Boolean(),
  ratePerMinute: Type.Number({ description: 'US dollars per minute of AI phone call' }),
  ratePerMessage: Type.Number({ description: 'US dollars per AI chat reply' }),
  currency: Type.Literal('USD'),
  billingCountry: NullableString,
  displayCurrency: StringEnum(['INR', 'USD'] as const),
  fxRate: Type.Unsafe<number | null>({
    type: ['number', 'null'],
    description:
      'US dollars to displayCurrency: 1 for USD, null for INR (POST /billing/topup-quote quotes the live rate)',
  }),
  fxSource: Type.Unsafe<string | null>({ type: ['string', 'null'], description: 'fixed for USD; null for INR' }),
  checkoutCurrency: StringEnum(['INR', 'USD'] as const),
  hasPaid: Type.Boolean(),
  minTopUpAmount: Type.Number({ description: 'US dollars' }),
  topUpQuickAmounts: Type.Array(Type.Number(), { description: 'US dollars' }),
};

export const BillingCountryBody = Type.Object(
  {
    billingCountry: Type.String({
      minLength: 1,
      maxLength: 8,
      description: 'ISO 3166-1 alpha-2 code of a supported country, any case',
    }),
  },
  { additionalProperties: false },
);
export type BillingCountryBody = Static<typeof BillingCountryBody>;

export const setBillingCountry = {
  tags: TAGS,
  summary: 'Set the billing country (currency, processor and tax)',
  description:
    'India pays in rupees with 18% GST; every other supported country in US dollars. The same country again changes ' +
    'nothing. A different country expires pending pay-as-you-go checkouts. On plan billing the first setting adds the ' +
    `one-time sign-up credit (100 rupees or 1 US dollar, spendable ${SIGNUP_CREDIT_DAYS} days) to the plan wallet, and a move ` +
    'between India and another country is refused (409) while the plan wallet holds money or a subscription exists. ' +
    'Key owner must be OWNER or ADMIN. Answers the billing status without billingModel.',
  params: OrganisationParams,
  body: BillingCountryBody,
  response: {
    200: Envelope(Type.Object(statusFields)),
    ...authErrors,
    ...errors(404, 409),
  },
};

export const billingConfig = {
  tags: TAGS,
  summary: 'Pay-as-you-go rates and top-up settings (US dollars)',
  description: "The organisation's own rates where set, else the rate card's Starter US dollar prices.",
  params: OrganisationParams,
  response: {
    200: Envelope(
      Type.Object({
        ratePerMinute: Type.Number(),
        ratePerMessage: Type.Number(),
        lowBalanceThreshold: Type.Number(),
        minTopUpAmount: Type.Number(),
        topUpQuickAmounts: Type.Array(Type.Number()),
        isActive: Type.Boolean(),
      }),
    ),
    ...authErrors,
    ...errors(404),
  },
};

export const billingStatus = {
  tags: TAGS,
  summary: 'Whether the organisation can place calls and send messages, with its wallet, rates and currencies',
  description:
    'For plan billing canMakeCalls and canSendMessage come from the plan wallet, while balance, isLowBalance and the ' +
    'rates stay the pay-as-you-go figures.',
  params: OrganisationParams,
  response: {
    200: Envelope(Type.Object({ ...statusFields, billingModel: BillingModel })),
    ...authErrors,
    ...errors(404),
  },
};

const DateText = (description: string) => Type.String({ description });

export const UsageQuery = Type.Object(
  {
    startDate: Type.Optional(DateText('Any date Date.parse reads; send with endDate')),
    endDate: Type.Optional(DateText('Any date Date.parse reads; a date alone includes that whole day (UTC)')),
  },
  { additionalProperties: false },
);
export type UsageQuery = Static<typeof UsageQuery>;

const UsageTotals = Type.Object({ count: Type.Integer(), durationSeconds: Type.Integer(), amount: Type.Number() });

export const usageSummary = {
  tags: TAGS,
  summary: 'Usage totals by type',
  description:
    'Usage paid from the wallet the organisation is billed from now (pay-as-you-go wallet, or plan wallet), in its ' +
    'currency, amounts in major units. The range applies when both startDate and endDate are sent; one alone is a 400.',
  params: OrganisationParams,
  querystring: UsageQuery,
  response: {
    200: Envelope(
      Type.Object({
        periodStart: NullableTimestamp,
        periodEnd: NullableTimestamp,
        totalDurationSeconds: Type.Integer(),
        totalDurationMinutes: Type.Number(),
        totalAmount: Type.Number(),
        totalCalls: Type.Integer(),
        currency: Type.String(),
        byUsageType: Type.Record(Type.String(), UsageTotals, { description: 'Keyed by usageType' }),
      }),
    ),
    ...authErrors,
    ...errors(404),
  },
};

export const UsageDetailsQuery = Type.Object(
  {
    startDate: Type.Optional(DateText('Any date Date.parse reads')),
    endDate: Type.Optional(DateText('Any date Date.parse reads; a date alone includes that whole day (UTC)')),
    usageType: Type.Optional(StringEnum(USAGE_TYPES)),
    billed: Type.Optional(
      StringEnum(['true', 'false'] as const, { description: 'true: billed only; false: unbilled only' }),
    ),
    ...PageFields,
  },
  { additionalProperties: false },
);
export type UsageDetailsQuery = Static<typeof UsageDetailsQuery>;

const UsageRecord = Type.Object({
  id: Type.String(),
  organisationId: Type.String(),
  voiceSessionId: NullableString,
  roomName: NullableString,
  callDirection: Type.Unsafe<'INBOUND' | 'OUTBOUND' | null>({
    type: ['string', 'null'],
    enum: ['INBOUND', 'OUTBOUND', null],
  }),
  usageType: StringEnum(USAGE_TYPES),
  durationSeconds: Type.Integer(),
  billedSeconds: Type.Integer(),
  messageCount: Type.Integer(),
  ratePerMinute: Type.Number({ description: 'Major units per minute (per unit for other usage)' }),
  totalAmount: Type.Number({ description: 'Major units' }),
  currency: Type.String(),
  startTime: NullableTimestamp,
  endTime: NullableTimestamp,
  billed: Type.Boolean(),
  walletDeducted: Type.Boolean(),
  createdAt: Timestamp,
});

export const usageDetails = {
  tags: TAGS,
  summary: 'Usage records, newest first',
  description: `400 names a bad date, usageType or billed value; limit is clamped to 1..${MAX_PAGE_LIMIT}.`,
  params: OrganisationParams,
  querystring: UsageDetailsQuery,
  response: {
    200: Envelope(Type.Object({ records: Type.Array(UsageRecord), pagination: Pagination })),
    ...authErrors,
    ...errors(404),
  },
};
