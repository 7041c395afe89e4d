import { Type, type Static } from '@sinclair/typebox';
import { Id } from '../../http/schemas.ts';
import { E164_PATTERN } from '../../http/e164.ts';
import { CARRIER_A_NUMBER_TYPES } from './inventory.ts';

export const ConnectBody = Type.Object(
  {
    organisationId: Id('Own organisation'),
    authId: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9]{20}$',
        description:
          "The account's Auth ID (MA… for a main account). Omit to reconnect the connected account. The service's own main account is refused",
      }),
    ),
    authToken: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 256,
        description: 'Omit on reconnect of the same account to reuse the stored one; a different authId needs its own',
      }),
    ),
    phoneNumber: Type.Optional(
      Type.String({
        pattern: E164_PATTERN,
        description:
          "E.164. Import only this number, and move it to Parley's application at once even when another " +
          'application answers it. Omit to import every number of the account',
      }),
    ),
    label: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Default: the existing label, then "carrier-a account"',
      }),
    ),
  },
  { additionalProperties: false },
);

export type ConnectBody = Static<typeof ConnectBody>;

export const SyncBody = Type.Object({ organisationId: Id('Own organisation') }, { additionalProperties: false });

export type SyncBody = Static<typeof SyncBody>;

export const SearchBody = Type.Object(
  {
    organisationId: Id('Own organisation'),
    country: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2; default US' })),
    type: Type.Optional(
      Type.Union(
        CARRIER_A_NUMBER_TYPES.map((type) => Type.Literal(type)),
        { description: "The carrier's number type; default local" },
      ),
    ),
    pattern: Type.Optional(
      Type.String({ pattern: '^[0-9]{1,10}$', description: 'Digits the number starts with after the country code' }),
    ),
    region: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'A state or province name' })),
    city: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
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
