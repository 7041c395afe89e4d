/**
 * Route schemas of /billing (spec document 2, Wallet and billing): billing identity, country, config, status,
 * usage, plans, rate card, the plan wallet balance and plan changes. Top-ups and payments are elsewhere.
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
import { RATE_LINE_KEYS } from '../../../billing/rate-card.ts';
import { SIGNUP_CREDIT_DAYS } from '../../../billing/billing-country.ts';
import { OrganisationParams, Pagination } from '../wallet/schemas.ts';

const TAGS = ['billing'];
const Nullable = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'] });
const NullableNumber = Type.Unsafe<number | null>({ type: ['number', 'null'] });
const NullableInteger = Type.Unsafe<number | null>({ type: ['integer', 'null'] });
const OptionalOrganisation = Type.Object(
  { organisationId: Type.Optional(Id("Organisation id; default the key's own")) },
  { additionalProperties: false },
);
export type OptionalOrganisation = Static<typeof OptionalOrganisation>;
const BillingModel = StringEnum(['WALLET', 'LEGACY_USD'] as const, {
  description: 'WALLET: plan billing (a plan wallet of grants); LEGACY_USD: pay-as-you-go US dollar wallet',
});
const Tier = StringEnum(['STARTER', 'PRO'] as const);

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
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
    limit: Type.Optional(
      Type.Integer({
        default: 20,
        description: `Clamped to 1..${MAX_PAGE_LIMIT}`,
        minimum: -1_000_000,
        maximum: 1_000_000,
      }),
    ),
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

const Plan = Type.Object({
  planId: Type.String(),
  code: Type.String(),
  tier: Tier,
  interval: Type.Literal('MONTHLY'),
  currency: Type.String(),
  feeMinor: Type.Number(),
  perMonthMinor: Type.Number(),
  chargeMinor: Type.Number({ description: 'What the payer is charged per cycle, tax included' }),
  taxMinor: Type.Number(),
  taxInclusive: Type.Boolean(),
  allowanceMinor: Type.Number({ description: 'Put in the plan wallet every 30 days' }),
  perMinuteMinor: NullableNumber,
  minutesIncluded: NullableInteger,
  concurrentCalls: Type.Integer(),
  topUpPresets: Type.Array(Type.Number(), { description: 'Minor units' }),
  rail: Type.String(),
  collectionMode: Type.Literal('MANDATE'),
});

export const listPlans = {
  tags: TAGS,
  summary: "Plans in the organisation's currency (INR paise for India, USD cents elsewhere)",
  description: '400 before a billing country is set.',
  querystring: OptionalOrganisation,
  response: {
    200: Envelope(
      Type.Object({
        organisationId: Type.String(),
        billingCountry: Type.String(),
        currency: Type.String(),
        rail: Type.String(),
        product: Type.String(),
        billingModel: BillingModel,
        canSubscribe: Type.Boolean({ description: 'False for pay-as-you-go US dollar organisations' }),
        plans: Type.Array(Plan),
      }),
    ),
    ...authErrors,
    ...errors(404),
  },
};

export const RateCardQuery = Type.Object(
  {
    organisationId: Type.Optional(Id("Organisation id; default the key's own")),
    at: Type.Optional(
      Type.String({ description: 'Prices in force at this instant (any date Date.parse reads); default now' }),
    ),
  },
  { additionalProperties: false },
);
export type RateCardQuery = Static<typeof RateCardQuery>;

export const rateCard = {
  tags: TAGS,
  summary: 'The rate card: prices per line at the tier of the paid plan (else Starter)',
  description: 'US dollar prices before a billing country is set. 400 when `at` is not a date.',
  querystring: RateCardQuery,
  response: {
    200: Envelope(
      Type.Object({
        organisationId: Type.String(),
        product: Type.String(),
        currency: Type.String(),
        tier: Tier,
        effectiveAt: Timestamp,
        lines: Type.Array(
          Type.Object({
            key: StringEnum(RATE_LINE_KEYS),
            label: Type.String(),
            unit: StringEnum(['MINUTE', 'REPLY', 'MONTH'] as const),
            priceMinor: Type.Number({ description: 'Minor units per unit, up to 4 decimals' }),
            currency: Type.String(),
            tier: Tier,
            pulseSeconds: Type.Integer(),
            minimumSeconds: Type.Integer(),
            managedOnly: Type.Boolean(),
            effectiveFrom: Timestamp,
          }),
        ),
      }),
    ),
    ...authErrors,
    ...errors(404),
  },
};

const ScheduledChange = Type.Object({
  planId: Type.String(),
  planCode: Type.String(),
  effectiveAt: Timestamp,
  dueNowMinor: NullableNumber,
  requestedAt: Timestamp,
});

const Subscription = Type.Object({
  id: Type.String(),
  status: StringEnum(['PENDING', 'ACTIVE', 'PAST_DUE', 'CANCELLED'] as const),
  planId: Type.String(),
  planCode: Type.String(),
  tier: Tier,
  interval: Type.Literal('MONTHLY'),
  currency: Type.String(),
  allowanceMinor: Type.Number(),
  currentPeriodEnd: Timestamp,
  nextGrantAt: Timestamp,
  cancelAtPeriodEnd: Type.Boolean(),
  graceUntil: NullableTimestamp,
  checkoutUrl: NullableString,
  scheduledChange: Nullable(ScheduledChange),
  renewalNeedsApproval: Type.Boolean({
    description: 'The subscription is past due: the payer must approve the renewal',
  }),
  canRestart: Type.Boolean({ description: 'Set to end at period end, and can still be kept' }),
});

export const planBalance = {
  tags: TAGS,
  summary: 'The plan wallet: spendable money grant by grant, the subscription and any unpaid checkout',
  description:
    'Amounts in minor units with up to 4 decimals. Grants are listed earliest-expiring first (the order they are ' +
    'spent in); lapsed grants are not counted. planMinor is plan allowance, topUpMinor money topped up or given.',
  querystring: OptionalOrganisation,
  response: {
    200: Envelope(
      Type.Object({
        organisationId: Type.String(),
        billingModel: BillingModel,
        balanceMinor: Type.Number(),
        currency: Type.String(),
        planMinor: Type.Number(),
        topUpMinor: Type.Number(),
        grants: Type.Array(
          Type.Object({
            id: Type.String(),
            source: StringEnum(['PLAN_CYCLE', 'TOP_UP', 'SIGNUP_CREDIT'] as const),
            amountMinor: Type.Number(),
            remainingMinor: Type.Number(),
            expiresAt: Timestamp,
          }),
        ),
        nextRefreshAt: NullableTimestamp,
        subscription: Nullable(Subscription),
        pendingCheckout: Nullable(
          Type.Object({
            paymentId: Type.String(),
            kind: Type.String(),
            chargeMinor: Type.Number(),
            currency: Type.String(),
            createdAt: Timestamp,
          }),
        ),
      }),
    ),
    ...authErrors,
    ...errors(404),
  },
};

export const SubscriptionParams = Type.Object({ id: Id('Subscription id') });
export const ChangeQuery = Type.Object({ planId: Id('The plan to move to') }, { additionalProperties: false });
export type ChangeQuery = Static<typeof ChangeQuery>;
export const ChangeBody = ChangeQuery;

const PlanSummary = Type.Object({ planId: Type.String(), code: Type.String(), tier: Tier, feeMinor: Type.Number() });
const ChangeQuote = Type.Object({
  subscriptionId: Type.String(),
  currentPlan: PlanSummary,
  newPlan: PlanSummary,
  direction: StringEnum(['UPGRADE', 'DOWNGRADE'] as const, { description: 'By plan fee' }),
  effective: StringEnum(['IMMEDIATE', 'PERIOD_END'] as const),
  effectiveAt: Timestamp,
  currency: Type.String(),
  dueNow: Type.Unsafe<number | null>({
    type: ['number', 'null'],
    description:
      'India: charged now, paise with 18% GST (the fee difference for the rest of the period; 0 for a downgrade). ' +
      'Elsewhere null: an upgrade is prorated by the payment processor',
  }),
  subtotalMinor: NullableNumber,
  taxMinor: NullableNumber,
});

const changeRules =
  'India: an upgrade pays the fee difference for the rest of the period now (dueNow, paise, tax included) and the new ' +
  'plan starts at period end; a downgrade costs nothing now and starts at period end. Elsewhere dueNow is null: an ' +
  'upgrade is immediate, a downgrade starts at renewal. 400 when planId is not a plan on sale in the same currency or ' +
  'is the current plan; 404 subscription not found; 409 subscription not ACTIVE.';

export const changeQuote = {
  tags: TAGS,
  summary: 'What changing the plan would cost and when it would start (creates nothing)',
  description: changeRules,
  params: SubscriptionParams,
  querystring: ChangeQuery,
  response: { 200: Envelope(ChangeQuote), ...authErrors, ...errors(404, 409) },
};

export const changePlan = {
  tags: TAGS,
  summary: "Change the subscription's plan",
  description:
    `${changeRules} A change starting at period end is recorded as the subscription's scheduledChange (a new ` +
    'change replaces it); an immediate upgrade switches the plan now. Collecting dueNow is not started by this call. ' +
    'Key owner must be OWNER or ADMIN. Answers the quote applied and the subscription after it.',
  params: SubscriptionParams,
  body: ChangeBody,
  response: {
    200: Envelope(Type.Object({ quote: ChangeQuote, subscription: Subscription })),
    ...authErrors,
    ...errors(404, 409),
  },
};
