/** Route schemas of /telephony/carrier-b/… (spec document 2, Telephony and phone numbers). */
import { Type } from '@sinclair/typebox';
import { Envelope, NullableString, Timestamp, authErrors, errors } from '../../../http/schemas.ts';
import { TAGS } from './schemas.ts';
import { ConnectBody, SearchBody, PurchaseBody, SyncBody } from '../../../carriers/carrier-b/types.ts';
export { ConnectBody, SearchBody, PurchaseBody, SyncBody } from '../../../carriers/carrier-b/types.ts';

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Complete = Type.Boolean({
  description:
    'Whether every page of the account was read. When false (a later page failed) what was read is imported ' +
    'and refreshed, and nothing is deactivated: sync again',
});

export const connect = {
  tags: TAGS,
  summary: "Connect the organisation's own carrier-b account and import every voice number (all pages)",
  description:
    'No wallet funding needed. Reconnecting refreshes present numbers and deactivates gone ones (only when the whole ' +
    "account was read). Switching to another account retires the previous account's numbers, refused with 409 " +
    'numbers_in_use while any agent answers on or dials out from one. Errors: 400 credentials_required (missing or ' +
    'incomplete credentials), 400 carrier_rejected (refused by the carrier); 403 self-serve telephony not enabled; ' +
    '409 change_in_progress (another connect or sync of the account is running), change_timed_out, numbers_in_use; ' +
    '502 the carrier failed; 503 lock_unavailable (nothing changed).',
  body: ConnectBody,
  response: {
    201: Envelope(
      Type.Object({
        integration: Type.Ref('TelephonyIntegration'),
        reusedStoredCredentials: Type.Boolean(),
        imported: Count('Numbers new to Parley (or active again)'),
        updated: Count('Numbers refreshed'),
        deactivated: Count('Numbers gone from the account, and numbers of a replaced account retired'),
        complete: Complete,
      }),
    ),
    ...authErrors,
    ...errors(404, 409, 502, 503),
  },
};

const AvailableNumber = Type.Object({
  phoneNumber: Type.String(),
  friendlyName: NullableString,
  locality: NullableString,
  region: NullableString,
  capabilities: Type.Object({ voice: Type.Boolean(), SMS: Type.Boolean(), MMS: Type.Boolean() }),
});

export const search = {
  tags: TAGS,
  summary:
    'Search carrier-b numbers for sale: Local, then Mobile, then TollFree; the first type with results (up to 20)',
  description: 'Needs a funded wallet (402) and a connected account (404). `type` is null when no type has results.',
  body: SearchBody,
  response: {
    200: Envelope(
      Type.Object({
        country: Type.String(),
        type: Type.Unsafe<string | null>({ type: ['string', 'null'], enum: ['Local', 'Mobile', 'TollFree', null] }),
        numbers: Type.Array(AvailableNumber),
      }),
    ),
    ...authErrors,
    ...errors(402, 404, 502, 503),
  },
};

export const purchase = {
  tags: TAGS,
  summary: "Buy a carrier-b number on the organisation's own account",
  description:
    "Buys at once (no confirm step or dry run) with the number's voice webhook pointed at Parley: " +
    '`{PARLEY_PUBLIC_URL}/webhooks/carrier-b/voice` (POST). The number is ACTIVE with routingStatus PURCHASED and no ' +
    'agent. The wallet must hold at least the minimum balance (1) but is not debited: the carrier bills the account. ' +
    'Errors: 400 carrier_rejected (number not available, credentials refused); 402; 404 no account connected.',
  body: PurchaseBody,
  response: { 201: Envelope(Type.Ref('PhoneNumber')), ...authErrors, ...errors(402, 404, 502, 503) },
};

export const sync = {
  tags: TAGS,
  summary: 'Re-read every incoming number of the connected carrier-b account (all pages) and reconcile',
  description:
    'Imports new numbers, refreshes present ones, deactivates gone ones (only when the whole account was read). Nothing ' +
    'bought, no funding needed. Errors as connect: 400, 404 no account connected, 409, 503.',
  body: SyncBody,
  response: {
    200: Envelope(
      Type.Object({
        remoteCount: Count('Voice numbers on the account, as read'),
        imported: Count('Numbers new to Parley (or active again)'),
        updated: Count('Numbers refreshed'),
        needsSetup: Count('Numbers answering through another application (routingStatus NEEDS_SETUP)'),
        skippedOtherProvider: Count('Numbers the organisation has active on another carrier: left alone'),
        deactivated: Count('Numbers gone from the account'),
        syncedAt: Timestamp,
        complete: Complete,
      }),
    ),
    ...authErrors,
    ...errors(404, 409, 502, 503),
  },
};
