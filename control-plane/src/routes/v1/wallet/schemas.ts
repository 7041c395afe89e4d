/**
 * Route schemas of /wallet (spec document 2, Wallet and billing; scope wallet:read): the pay-as-you-go wallet in US
 * dollars, its transactions (both wallets'), and whether it can pay an amount.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Envelope, Id, NullableString, StringEnum, Timestamp, authErrors, errors } from '../../../http/schemas.ts';
import { TRANSACTION_TYPES } from '../../../wallet/ledger-types.ts';
import { MAX_PAGE_LIMIT } from '../../../billing/query-values.ts';

const TAGS = ['wallet'];
export const OrganisationParams = Type.Object({ organisationId: Id("Organisation id (the key's own)") });

export const getWallet = {
  tags: TAGS,
  summary: 'The pay-as-you-go wallet: balance in US dollars',
  description:
    'Plan billing keeps its money in the plan wallet: see GET /billing/balance. 404 before the wallet exists (first credit).',
  params: OrganisationParams,
  response: {
    200: Envelope(
      Type.Object({
        balance: Type.Number({ description: 'Major units (US dollars)' }),
        currency: Type.String(),
        hasPaid: Type.Boolean({ description: 'Whether a paid top-up ever credited the wallet' }),
      }),
    ),
    ...authErrors,
    ...errors(404),
  },
};

/**
 * page and limit of the money lists (transactions, usage details): limit is clamped to 1..MAX_PAGE_LIMIT rather
 * than refused (spec document 3), so any integer is accepted.
 */
export const PageFields = {
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
  limit: Type.Optional(
    Type.Integer({
      default: 20,
      description: `Clamped to 1..${MAX_PAGE_LIMIT}`,
      minimum: -1_000_000,
      maximum: 1_000_000,
    }),
  ),
};

export const TransactionQuery = Type.Object(
  {
    type: Type.Optional(StringEnum(TRANSACTION_TYPES)),
    startDate: Type.Optional(Type.String({ description: 'Any date Date.parse reads; from this instant on' })),
    endDate: Type.Optional(
      Type.String({ description: 'Any date Date.parse reads; a date without a time includes that whole day (UTC)' }),
    ),
    ...PageFields,
  },
  { additionalProperties: false },
);
export type TransactionQuery = Static<typeof TransactionQuery>;

const Transaction = Type.Object({
  id: Type.String(),
  type: StringEnum(TRANSACTION_TYPES),
  amount: Type.Number({
    description: 'US dollars, signed: negative when money left the wallet; 0 on plan-wallet lines',
  }),
  balanceAfter: Type.Number({ description: 'US dollars; 0 on plan-wallet lines' }),
  referenceType: Type.String({
    description: 'VOICE_CALL, TOP_UP, SIGNUP_CREDIT, PLAN_CYCLE, GRANT_EXPIRY, ADJUSTMENT, …',
  }),
  referenceId: NullableString,
  description: Type.String(),
  createdAt: Timestamp,
  unit: Type.Optional(Type.Literal('MINOR', { description: 'Plan-wallet lines only' })),
  currency: Type.Optional(Type.String({ description: 'Plan-wallet lines only' })),
  amountMinor: Type.Optional(Type.Number({ description: 'Plan-wallet lines: signed minor units, up to 4 decimals' })),
  balanceMinorAfter: Type.Optional(Type.Number({ description: 'Plan-wallet lines: minor units, up to 4 decimals' })),
});

export const Pagination = Type.Object({
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
  totalPages: Type.Integer(),
});

export const listTransactions = {
  tags: TAGS,
  summary: "The wallets' transactions, newest first",
  description:
    'Both the pay-as-you-go wallet and the plan wallet. 400 names a bad type, startDate or endDate; limit is clamped to ' +
    `1..${MAX_PAGE_LIMIT}.`,
  params: OrganisationParams,
  querystring: TransactionQuery,
  response: {
    200: Envelope(Type.Object({ transactions: Type.Array(Transaction), pagination: Pagination })),
    ...authErrors,
    ...errors(404),
  },
};

export const CheckBalanceQuery = Type.Object(
  { amount: Type.Number({ exclusiveMinimum: 0, maximum: 1e9, description: 'US dollars' }) },
  { additionalProperties: false },
);
export type CheckBalanceQuery = Static<typeof CheckBalanceQuery>;

export const checkBalance = {
  tags: TAGS,
  summary: 'Whether the wallet holds an amount',
  description:
    'hasEnoughBalance is false when the organisation has no wallet yet. 400 when amount is missing or not a positive number.',
  params: OrganisationParams,
  querystring: CheckBalanceQuery,
  response: {
    200: Envelope(Type.Object({ hasEnoughBalance: Type.Boolean(), requiredAmount: Type.Number() })),
    ...authErrors,
    ...errors(404),
  },
};
