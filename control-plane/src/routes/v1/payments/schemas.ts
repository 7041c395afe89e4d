/** Schemas of the top-up and payment routes (spec document 2, "Wallet and billing (REST)"). */
import { Type, type Static } from '@sinclair/typebox';
import { Envelope, Id, NullableString, StringEnum, authErrors, errors } from '../../../http/schemas.ts';

/** Largest amount one top-up may name, in major units: far above any real top-up, far below integer trouble. */
const MAX_TOP_UP_MAJOR = 10_000_000;
/** The checkout currencies: rupees in India, US dollars elsewhere. */
const Currency = (description: string) => StringEnum(['INR', 'USD'] as const, { description });
const Money = (description: string) => Type.Number({ description });

export const TopUpQuoteBody = Type.Object(
  {
    organisationId: Id('Own organisation'),
    amount: Type.Number({
      exclusiveMinimum: 0,
      maximum: MAX_TOP_UP_MAJOR,
      description:
        'Wallet credit in major units of the checkout currency (INR for India, else USD), at most 2 decimals',
    }),
    currency: Type.Optional(Currency('Must be the checkout currency when sent')),
  },
  { additionalProperties: false },
);
export type TopUpQuoteBody = Static<typeof TopUpQuoteBody>;

const QuoteData = Type.Object({
  gateway: Type.String({ description: 'The payment processor: razorpay' }),
  walletCredit: Type.Object({ amount: Type.Number(), currency: Type.String() }),
  walletCreditUsd: Money('What the US-dollar wallet receives'),
  subtotal: Money('The wallet credit in the charge currency'),
  platformFee: Type.Number(),
  platformFeeLabel: Type.String(),
  tax: Type.Number(),
  taxLabel: Type.String({ description: 'GST 18 % in India, else No tax' }),
  total: Money('What the payer is charged, in chargeCurrency'),
  chargeCurrency: Type.String(),
  fx: Type.Union(
    [
      Type.Object({
        from: Type.String(),
        to: Type.String(),
        rate: Type.Number(),
        source: Type.String({ description: 'configured: PARLEY_FX_USD_INR' }),
      }),
      Type.Null(),
    ],
    { description: 'The exchange rate applied; null for a US-dollar checkout' },
  ),
  rate: Type.Number({ description: 'Charge currency per US dollar (1 for USD)' }),
  quoteId: Type.String({ description: 'Signed quote, valid 10 minutes and usable once; echo it to create-order' }),
  expiresAt: Type.String({ format: 'date-time' }),
  minimumTopUp: Type.Object({ amountUsd: Type.Number(), meetsMinimum: Type.Boolean() }),
});

export const topUpQuote = {
  tags: ['billing'],
  summary: 'Quote a pay-as-you-go wallet top-up (OWNER or ADMIN)',
  description:
    'Prices a top-up of the US-dollar wallet: credit, platform fee, tax (18 % GST in India), total in the checkout ' +
    'currency and the exchange rate. The returned quoteId is signed, valid 10 minutes and usable once by ' +
    'POST /payments/create-order. Plan-billing organisations get 409 (use POST /billing/topups). 502 when a rupee ' +
    'quote has no exchange rate; 503 when card payments are not configured.',
  body: TopUpQuoteBody,
  response: { 200: Envelope(QuoteData), ...authErrors, ...errors(404, 409, 502, 503) },
};

export const CreateOrderBody = Type.Object(
  {
    organisationId: Id('Own organisation, the one the quote was issued for'),
    amount: Type.Number({
      exclusiveMinimum: 0,
      maximum: MAX_TOP_UP_MAJOR,
      description: "The quote's walletCredit.amount",
    }),
    currency: Type.Optional(Currency("The quote's walletCredit.currency")),
    expectedTotal: Type.Object(
      {
        amount: Type.Number({ minimum: 0, maximum: MAX_TOP_UP_MAJOR * 2, description: "The quote's total" }),
        currency: Currency("The quote's chargeCurrency"),
        walletCreditUsd: Type.Number({
          minimum: 0,
          maximum: MAX_TOP_UP_MAJOR,
          description: "The quote's walletCreditUsd",
        }),
        quoteId: Type.String({ minLength: 1, maxLength: 2000, description: "The quote's quoteId" }),
      },
      { additionalProperties: false, description: 'The quote echoed back; every value must match the signed quote' },
    ),
  },
  { additionalProperties: false },
);
export type CreateOrderBody = Static<typeof CreateOrderBody>;

export const createOrder = {
  tags: ['payments'],
  summary: 'Create a payment order from a top-up quote (OWNER or ADMIN)',
  description:
    'Creates an order at the payment processor and a pending payment; the wallet is credited only when the ' +
    "processor's signed webhook confirms the payment. 400 when the quote is invalid, edited, expired, for another " +
    'organisation or below the minimum; 409 when it was already used, the total changed (re-quote) or the billing ' +
    'country changed since; 502 when the processor refused or did not answer (nothing charged, the quote stays ' +
    'usable); 503 when card payments are not configured.',
  body: CreateOrderBody,
  response: {
    201: Envelope(
      Type.Object({
        paymentId: Type.String(),
        gateway: Type.String(),
        checkoutUrl: Type.String({ description: "Parley's hosted payment page, with a signed pay token (24 hours)" }),
        pgOrderId: Type.String({ description: "The processor's order id" }),
        pgKeyId: Type.String({ description: 'Publishable key the checkout opens with' }),
        amountMinor: Type.Integer({ description: 'What the payer is charged, minor units of currency' }),
        currency: Type.String(),
        pgCustomerId: Type.Union([Type.String(), Type.Null()], {
          description: 'Always null: no customer is created at the processor',
        }),
        prefill: Type.Object({ name: NullableString, email: NullableString, contact: NullableString }),
      }),
    ),
    ...authErrors,
    ...errors(404, 409, 502, 503),
  },
};

/** Where a plan checkout's payer returns (plan-checkout.ts returnUrlOf keeps it inside the dashboard). */
const ReturnUrl = Type.Optional(
  Type.String({
    maxLength: 2000,
    description: 'Outside India only: where the payer returns; addresses outside the dashboard become its billing page',
  }),
);

export const PlanTopUpBody = Type.Object(
  {
    organisationId: Type.Optional(Id('Own organisation (default)')),
    amountMinor: Type.Integer({
      minimum: 1,
      maximum: MAX_TOP_UP_MAJOR * 100,
      description: "Before tax, minor units of the plan's currency; at least the smallest of the plan's topUpPresets",
    }),
    returnUrl: ReturnUrl,
  },
  { additionalProperties: false },
);
export type PlanTopUpBody = Static<typeof PlanTopUpBody>;

export const planTopUp = {
  tags: ['billing'],
  summary: 'Top up the plan wallet (plan billing; OWNER or ADMIN)',
  description:
    'Creates a checkout for a plan-wallet top-up; nothing is charged by the call. India pays amountMinor plus 18 % ' +
    'GST (chargeMinor) and needs invoice details on file; elsewhere chargeMinor equals amountMinor in US cents. The ' +
    'money arrives when the payment does and stays spendable 365 days. 409 for pay-as-you-go organisations, when ' +
    'top-ups are not on sale in the currency or India invoice details are missing; 502 when the processor refused ' +
    'or did not answer (nothing charged); 503 when card payments are not configured.',
  body: PlanTopUpBody,
  response: {
    201: Envelope(
      Type.Object({
        rail: Type.String({ description: 'card, or upi_card in India' }),
        amountMinor: Type.Integer(),
        currency: Type.String(),
        chargeMinor: Type.Integer({ description: 'What the payer is charged, tax included' }),
        checkoutUrl: Type.String(),
        reference: Type.String({ description: 'The payment id' }),
      }),
    ),
    ...authErrors,
    ...errors(404, 409, 502, 503),
  },
};

export const PlanPurchaseBody = Type.Object(
  {
    organisationId: Type.Optional(Id('Own organisation (default)')),
    planId: Id('The plan to buy: a planId of GET /billing/plans, sold in the currency the billing country pays in'),
    returnUrl: ReturnUrl,
  },
  { additionalProperties: false },
);
export type PlanPurchaseBody = Static<typeof PlanPurchaseBody>;

export const planPurchase = {
  tags: ['billing'],
  summary: 'Buy a plan (plan billing; OWNER or ADMIN)',
  description:
    "Not shown in the spec. Creates a checkout for the plan's monthly fee (plus 18 % GST in India unless the fee " +
    'includes it); nothing is charged by the call. When the processor confirms the payment the subscription starts ' +
    'ACTIVE, the organisation moves to plan billing (billingModel WALLET) and the first allowance is put in the plan ' +
    'wallet; the next arrives every 30 days. GET /billing/balance shows the checkout as pendingCheckout until then. ' +
    '400 unknown plan or no billing country; 409 a subscription exists, the plan is sold in another currency, or ' +
    'India invoice details are missing; 502 the processor refused or did not answer (nothing charged); 503 card ' +
    'payments not configured.',
  body: PlanPurchaseBody,
  response: {
    201: Envelope(
      Type.Object({
        planId: Type.String(),
        planCode: Type.String(),
        amountMinor: Type.Integer({ description: 'The monthly fee before tax, minor units' }),
        taxMinor: Type.Integer({ description: '18 % GST in India, else 0' }),
        chargeMinor: Type.Integer({ description: 'What the payer is charged, tax included' }),
        currency: Type.String(),
        checkoutUrl: Type.String(),
        reference: Type.String({ description: 'The payment id' }),
      }),
    ),
    ...authErrors,
    ...errors(404, 409, 502, 503),
  },
};
