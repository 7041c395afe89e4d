/**
 * Route schema of GET /telephony/managed/{organisationId} (spec document 2). The spec gives the first fields of the
 * answer (available … useCases) and the prices; the rest is Parley's design, described here for the OpenAPI document.
 */
import { Type, type Static } from '@sinclair/typebox';
import { E164_PATTERN } from '../../../http/e164.ts';
import { Envelope, Id, NullableString, StringEnum, authErrors, errors } from '../../../http/schemas.ts';
import { CARRIERS } from '../../../telephony/carrier.ts';
import { TAGS } from './schemas.ts';
import { USE_CASE_IDS } from '../../../telephony/managed.ts';

const Minor = (description: string) => Type.Integer({ minimum: 0, description });
const NullableInteger = (description: string) => Type.Unsafe<number | null>({ type: ['integer', 'null'], description });

const UseCase = Type.Object({
  id: StringEnum(USE_CASE_IDS),
  offered: Type.Boolean({ description: 'Whether managed numbers may be used for it' }),
  label: Type.String(),
  example: Type.String(),
});

const RateCardLine = Type.Object(
  {
    key: StringEnum(['number_rental_month', 'phone_line_minute'] as const),
    label: Type.String(),
    unit: StringEnum(['MONTH', 'MINUTE'] as const),
    priceMinor: Minor('Price per unit in minor units (paise)'),
    currency: Type.String(),
    tier: NullableString,
    pulseSeconds: NullableInteger('Billing block of a per-minute line: each started block is paid'),
    minimumSeconds: NullableInteger('Least billed per call'),
    managedOnly: Type.Boolean(),
    effectiveFrom: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      format: 'date-time',
      description: 'null: in effect from the start',
    }),
  },
  { description: 'A line of the rate card (spec document 1, Wallet and billing)' },
);

const ManagedStatus = Type.Object({
  available: Type.Boolean({
    description:
      'The organisation can rent managed numbers: managed numbers are enabled for it, it is billed in India, it ' +
      "has no carrier account of its own connected, and this server has the service's own carrier-a account configured",
  }),
  route: StringEnum(['managed', 'own_account', 'india_kyc', 'self_serve', 'none'] as const, {
    description:
      'How the organisation gets numbers: managed (rented here); own_account (through the carrier account it ' +
      'connected); india_kyc (India numbers through the KYC wizard of /telephony/carrier-d); self_serve (connect a ' +
      'carrier account of its own); none (no way is enabled)',
  }),
  planRequired: Type.Boolean({
    description: "Renting needs a subscription plan: managed numbers are paid from the plan's wallet",
  }),
  outsideIndia: Type.Boolean({ description: 'The billing country is set and is not India' }),
  country: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    description: "The organisation's billing country (ISO 3166-1 alpha-2); null when not set",
  }),
  useCases: Type.Array(UseCase, {
    description:
      'TRANSACTIONAL (service calls) is offered; PROMOTIONAL and FINANCIAL calls need the 140- and 1600-series ' +
      'numbers Indian rules reserve for them, which are not rented here',
  }),
  unavailable: Type.Unsafe<{ code: string; message: string } | null>({
    type: ['object', 'null'],
    description:
      'Why available is false (the first reason): feature_disabled, billing_country_missing, outside_india, ' +
      'own_carrier_account, not_configured. null when available',
    properties: { code: { type: 'string' }, message: { type: 'string' } },
  }),
  verification: Type.Object(
    {
      required: Type.Boolean(),
      state: StringEnum(['not_started', 'in_progress', 'approved', 'rejected'] as const),
      source: Type.Unsafe<string | null>({
        type: ['string', 'null'],
        enum: [...CARRIERS, null],
        description: 'Where the state is read: the India KYC profile (carrier-d), or null when there is none',
      }),
      lastStep: NullableString,
      nextAction: Type.Unsafe<{ code: string; message: string } | null>({
        type: ['object', 'null'],
        description: 'start_verification, continue_verification or resubmit_verification; null once approved',
        properties: { code: { type: 'string' }, message: { type: 'string' } },
      }),
    },
    { description: 'The business verification (India KYC) managed numbers need' },
  ),
  phoneAccount: Type.Object(
    {
      provider: StringEnum(CARRIERS),
      status: StringEnum(['not_opened', 'active'] as const, {
        description: 'active once the organisation rents a managed number',
      }),
      serviceConfigured: Type.Boolean({
        description: "This server has the service's own carrier-a account configured",
      }),
      activeNumbers: Type.Integer({ minimum: 0 }),
    },
    { description: "The organisation's phone account on the service's carrier-a account" },
  ),
  prices: Type.Object(
    {
      currency: Type.String({ description: 'INR' }),
      numberMonthlyMinor: Minor('A number, per month: 50000 paise'),
      phoneLineMinuteMinor: Minor('The phone line, per minute: 50 paise'),
      phoneLinePulseSeconds: Type.Integer({
        minimum: 1,
        description: 'The phone line is billed in blocks of this many seconds (30)',
      }),
      phoneLineBlockMinor: Minor('The price of one block (25 paise)'),
      paidFrom: StringEnum(['organisation_wallet'] as const, { description: "The organisation's own wallet pays" }),
      rateCard: Type.Array(RateCardLine),
    },
    { description: 'Prices in minor units, from the rate card' },
  ),
  numbers: Type.Array(Type.Ref('PhoneNumber'), {
    description: 'Active numbers rented by the service for the organisation (metadata.source managed), newest first',
  }),
});

export const managedStatus = {
  tags: TAGS,
  summary: 'Managed numbers: availability, purchase route, verification, phone account, prices and rented numbers',
  description:
    'Read only and free. Numbers rented by the service on its own carrier-a account for an organisation billed in ' +
    'India with no carrier account of its own. Answers for every organisation: when managed numbers are not for it, ' +
    '`available` is false and `unavailable` says why. 404 organisation not found.',
  params: Type.Object({ organisationId: Id('Own organisation') }),
  response: { 200: Envelope(ManagedStatus), ...authErrors, ...errors(404) },
};

const OrganisationParams = Type.Object({ organisationId: Id('Own organisation') });

const Rental = Type.Object(
  {
    id: Id('Rental id'),
    status: StringEnum(['PENDING', 'ACTIVE', 'UNPAID', 'RELEASED', 'FAILED'] as const),
    currency: Type.String({ description: 'The plan wallet currency the rent is paid in (INR)' }),
    monthlyPriceMinor: Type.Number({ description: 'What a month costs, minor units (paise), from the rate card' }),
    paidThrough: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      format: 'date-time',
      description: 'Paid up to here; the next month is charged to the plan wallet then',
    }),
    unpaidSince: Type.Unsafe<string | null>({
      type: ['string', 'null'],
      format: 'date-time',
      description: 'When a renewal could not be paid; the number is given back 7 days later unless paid meanwhile',
    }),
  },
  { description: 'A managed number rental' },
);

const RentableNumber = Type.Object({
  phoneNumber: Type.String({ description: 'E.164' }),
  region: NullableString,
  type: NullableString,
  voice: Type.Boolean(),
  sms: Type.Boolean(),
});

export const AvailableQuery = Type.Object(
  {
    pattern: Type.Optional(
      Type.String({ pattern: '^[0-9]{1,8}$', description: 'Digits the number starts with after +91 (an area code)' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 20 })),
  },
  { additionalProperties: false },
);
export type AvailableQuery = Static<typeof AvailableQuery>;

const RENT_RULES =
  'Needs managed numbers available to the organisation (see GET /telephony/managed/{organisationId}), the ' +
  'business verification approved, and plan billing with an active plan.';

export const availableNumbers = {
  tags: TAGS,
  summary: 'Managed numbers the organisation can rent now, and what a month costs',
  description: `Read only and free. ${RENT_RULES} Errors: 403 feature disabled; 409 not available to this organisation, not verified (kyc_not_approved) or not on plan billing; 502 the carrier failed; 503 this server cannot rent numbers.`,
  params: OrganisationParams,
  querystring: AvailableQuery,
  response: {
    200: Envelope(
      Type.Object({
        numbers: Type.Array(RentableNumber),
        monthlyPriceMinor: Type.Number(),
        currency: Type.String(),
      }),
    ),
    ...authErrors,
    ...errors(404, 409, 502, 503),
  },
};

export const RentBody = Type.Object(
  { phoneNumber: Type.String({ pattern: E164_PATTERN, description: 'E.164, from GET …/available' }) },
  { additionalProperties: false },
);
export type RentBody = Static<typeof RentBody>;

export const rentNumber = {
  tags: TAGS,
  summary: 'Rent a managed number',
  description:
    `Immediate, no confirm. ${RENT_RULES} The first month is charged to the plan wallet when the carrier confirms ` +
    'the number; each following month the rental job charges the next one. A month the wallet cannot pay leaves the ' +
    'number answering for 7 days, then it is given back. Errors: 400 the carrier refused the number (taken, not ' +
    'offered); 402 the plan wallet cannot pay a month; 403 feature disabled; 409 already rented, not available to ' +
    'this organisation, not verified or not on plan billing; 502 the carrier failed (nothing charged); 503 this ' +
    'server cannot rent numbers.',
  params: OrganisationParams,
  body: RentBody,
  response: {
    201: Envelope(Type.Object({ number: Type.Ref('PhoneNumber'), rental: Rental })),
    ...authErrors,
    ...errors(402, 404, 409, 502, 503),
  },
};

export const ReleaseParams = Type.Object({
  organisationId: Id('Own organisation'),
  id: Id('Phone number id of a rented number'),
});

export const releaseNumber = {
  tags: TAGS,
  summary: 'Give a rented managed number back',
  description:
    'Immediate. The number stops answering and is no longer charged; the month already paid is not refunded. ' +
    'Errors: 404 no rented number with this id; 502 the carrier failed (the number stays rented); 503.',
  params: ReleaseParams,
  response: {
    200: Envelope(Type.Object({ released: Type.Literal(true), id: Type.String() })),
    ...authErrors,
    ...errors(404, 502, 503),
  },
};
