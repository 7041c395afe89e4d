/**
 * Route schemas of plan billing's reads and changes (spec document 2, Wallet and billing): plans, the rate card,
 * the plan wallet balance, and the quote and the change of a subscription's plan.
 */
import { Type, type Static } from '@sinclair/typebox';
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
import { RATE_LINE_KEYS } from '../../../billing/rate-card.ts';
import {
  BillingModel,
  Nullable,
  NullableInteger,
  NullableNumber,
  OptionalOrganisation,
  TAGS,
  Tier,
} from './schemas.ts';

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
