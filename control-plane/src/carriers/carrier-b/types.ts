import { Type, type Static } from '@sinclair/typebox';
import { Id } from '../../http/schemas.ts';
import { E164_PATTERN } from '../../http/e164.ts';

export const ConnectBody = Type.Object(
  {
    organisationId: Id('Own organisation'),
    accountSid: Type.Optional(
      Type.String({ pattern: '^AC[0-9a-fA-F]{32}$', description: 'Omit to reconnect the connected account' }),
    ),
    authToken: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description:
          'Omit on reconnect of the same account to reuse the stored one; a different accountSid needs its own',
      }),
    ),
    label: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Default: the existing label, then "carrier-b account"',
      }),
    ),
    amd: Type.Optional(
      Type.Boolean({
        description: 'Answering machine detection; kept on reconnect when omitted, false for a new account',
      }),
    ),
  },
  { additionalProperties: false },
);

export type ConnectBody = Static<typeof ConnectBody>;

export const SearchBody = Type.Object(
  {
    organisationId: Id('Own organisation'),
    country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2; default US' })),
    areaCode: Type.Optional(Type.String({ pattern: '^[0-9]{1,5}$' })),
    contains: Type.Optional(
      Type.String({
        pattern: '^[0-9A-Za-z*]{1,16}$',
        description: 'Digits or letters the number contains; * matches any digit',
      }),
    ),
  },
  { additionalProperties: false },
);

export type SearchBody = Static<typeof SearchBody>;

export const PurchaseBody = Type.Object(
  {
    organisationId: Id('Own organisation'),
    phoneNumber: Type.String({ pattern: E164_PATTERN, description: 'E.164, from a search result' }),
  },
  { additionalProperties: false },
);

export type PurchaseBody = Static<typeof PurchaseBody>;

export const SyncBody = Type.Object({ organisationId: Id('Own organisation') }, { additionalProperties: false });

export type SyncBody = Static<typeof SyncBody>;
