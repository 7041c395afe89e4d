import { Type, type Static } from '@sinclair/typebox';
import { Id } from '../../http/schemas.ts';
import { CARRIER_C_SUBDOMAINS } from './api.ts';

const Credential = (description: string) => Type.String({ minLength: 1, maxLength: 256, description });

export const ConnectBody = Type.Object(
  {
    organisationId: Id('Own organisation'),
    accountSid: Credential("The account SID (API settings of the carrier's dashboard)"),
    apiKey: Credential("API key: the user name of the carrier's basic authentication"),
    apiToken: Credential('API token: its password'),
    appId: Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'The flow (app) of the account whose streaming applet reaches Parley: imported numbers are pointed at it',
    }),
    // A plain string, checked by the service: a value outside the list is its own 400 (subdomain_not_allowed).
    subdomain: Type.Optional(
      Type.String({
        maxLength: 253,
        description: `The account's regional API host: ${CARRIER_C_SUBDOMAINS[0]} (Singapore, default) or ${CARRIER_C_SUBDOMAINS[1]} (Mumbai)`,
        examples: [...CARRIER_C_SUBDOMAINS],
      }),
    ),
    label: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'Default: the existing label, then "carrier-c account"',
      }),
    ),
  },
  { additionalProperties: false },
);

export type ConnectBody = Static<typeof ConnectBody>;

export const SyncBody = Type.Object({ organisationId: Id('Own organisation') }, { additionalProperties: false });

export type SyncBody = Static<typeof SyncBody>;
