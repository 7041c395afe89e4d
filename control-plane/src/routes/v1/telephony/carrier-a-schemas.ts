/**
 * Route schemas of /telephony/carrier-a/… (spec document 2, Telephony and phone numbers). The spec leaves the body's
 * field types and the connect response out; what is here is Parley's design, in carrier-b's image.
 */
import { Type } from '@sinclair/typebox';
import { Envelope, NullableString, Timestamp, authErrors, errors } from '../../../http/schemas.ts';
import { TAGS } from './schemas.ts';
import { ConnectBody, PurchaseBody, SearchBody, SyncBody } from '../../../carriers/carrier-a/types.ts';
export { ConnectBody, PurchaseBody, SearchBody, SyncBody } from '../../../carriers/carrier-a/types.ts';

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Complete = Type.Boolean({
  description:
    'Whether every page of the account was read (for a connect naming phoneNumber: whether that number was). ' +
    'When false (a later page failed, or the account changed while it was read) what was read is imported and ' +
    'refreshed, and nothing is deactivated: sync again',
});
/** The counts carrier-b's sync answers with, in its order. */
const Counts = {
  remoteCount: Count('Voice numbers of the main account, as read (subaccount numbers not counted)'),
  imported: Count('Numbers new to Parley (or active again)'),
  updated: Count('Numbers refreshed'),
  needsSetup: Count('Numbers answering through another application, left alone (routingStatus NEEDS_SETUP)'),
  skippedOtherProvider: Count('Numbers the organisation has active on another carrier: left alone'),
};
/** What carrier-a adds. */
const CarrierACounts = {
  pointed: Count(
    "Numbers pointed at Parley's application by this request (those on no application, and the one named in phoneNumber)",
  ),
  skippedSubaccount: Count('Numbers of subaccounts: never imported'),
};

export const connect = {
  tags: TAGS,
  summary: "Connect the organisation's own carrier-a account and import its numbers (or only the one named)",
  description:
    "Creates Parley's application on the account (named parley-voice-agents; answer URL " +
    '`{PARLEY_PUBLIC_URL}/webhooks/carrier-a/voice`, hangup URL `…/webhooks/carrier-a/hangup`, both POST), or corrects ' +
    'the one there, and points each imported number on no application at it (READY). A number answering through ' +
    'another application is imported NEEDS_SETUP and left alone at the carrier until it is assigned to an agent; the ' +
    "number named in phoneNumber is moved to Parley's application at once. Numbers of subaccounts are never imported, " +
    'nor numbers without voice. No wallet funding; nothing billed. On reconnect of the same account authId and ' +
    'authToken may be omitted (the stored ones are reused). A whole-account connect refreshes present numbers and ' +
    'deactivates gone ones (only when the whole account was read); a connect naming phoneNumber deactivates nothing. ' +
    "Switching to another account retires the previous account's numbers, refused with 409 numbers_in_use while any " +
    'agent answers on or dials out from one. Credentials are stored encrypted; config shows auth_id and auth_token only ' +
    'as "configured", and app_id, the application\'s id. Errors: 400 credentials_required, carrier_rejected (refused ' +
    'by the carrier), validation_failed (phoneNumber not a voice number of the main account); 403 self-serve telephony ' +
    "not enabled, or forbidden: the service's own carrier-a account; 409 change_in_progress, change_timed_out, " +
    'numbers_in_use; 502 the carrier failed; 503 lock_unavailable, or carrier-a not configured on this server ' +
    '(nothing changed).',
  body: ConnectBody,
  response: {
    201: Envelope(
      Type.Object({
        integration: Type.Ref('TelephonyIntegration'),
        reusedStoredCredentials: Type.Boolean(),
        applicationCreated: Type.Boolean({
          description: "Whether Parley's application was created on the account by this connect",
        }),
        ...Counts,
        ...CarrierACounts,
        deactivated: Count('Numbers gone from the account, and numbers of a replaced account retired'),
        complete: Complete,
        number: Type.Unsafe<unknown>({
          anyOf: [{ $ref: 'PhoneNumber' }, { type: 'null' }],
          description: 'The number named in phoneNumber, as imported; null when none was named',
        }),
      }),
    ),
    ...authErrors,
    ...errors(404, 409, 502, 503),
  },
};

export const sync = {
  tags: TAGS,
  summary: 'Re-read every number of the connected carrier-a account (all pages) and reconcile',
  description:
    "Makes sure Parley's application exists on the account with Parley's URLs (re-creating it when it was deleted), " +
    'points numbers on no application at it, imports new numbers, refreshes present ones and deactivates gone ones ' +
    '(only when the whole account was read). Numbers answering through another application stay NEEDS_SETUP and are ' +
    'left alone; subaccount numbers are never imported. Nothing bought, no funding needed. Errors: 403 self-serve ' +
    "telephony not enabled, or the connected account is the service's own; 404 no carrier-a account connected; 409 " +
    'conflict when the organisation gets numbers from the service itself (managed numbers: use GET ' +
    '/telephony/managed/{organisationId}), change_in_progress, change_timed_out; 400 and 502 as connect; 503.',
  body: SyncBody,
  response: {
    200: Envelope(
      Type.Object({
        ...Counts,
        deactivated: Count('Numbers gone from the account'),
        syncedAt: Timestamp,
        complete: Complete,
        ...CarrierACounts,
        appId: Type.String({
          description: "Id of Parley's application on the account (also config.app_id of the integration)",
        }),
      }),
    ),
    ...authErrors,
    ...errors(404, 409, 502, 503),
  },
};

const AvailableNumber = Type.Object({
  phoneNumber: Type.String({ description: 'E.164' }),
  region: NullableString,
  type: NullableString,
  voice: Type.Boolean(),
  sms: Type.Boolean(),
});

export const search = {
  tags: TAGS,
  summary: "Search carrier-a's numbers for sale (voice numbers only, up to 20)",
  description:
    'Not in the spec (the MCP tool numbers_search needs it). Searches the inventory of the carrier through the ' +
    "organisation's own connected account by country, type, pattern (digits after the country code), region or city. " +
    'Needs a funded wallet (402) and a connected account (404).',
  body: SearchBody,
  response: {
    200: Envelope(Type.Object({ country: Type.String(), type: Type.String(), numbers: Type.Array(AvailableNumber) })),
    ...authErrors,
    ...errors(402, 404, 502, 503),
  },
};

export const purchase = {
  tags: TAGS,
  summary: "Buy a carrier-a number on the organisation's own account",
  description:
    "Not in the spec (the MCP tool numbers_purchase needs it). Buys at once, answered by Parley's application on the " +
    'account (its answer URL `{PARLEY_PUBLIC_URL}/webhooks/carrier-a/voice`). The number is ACTIVE with routingStatus ' +
    'PURCHASED and no agent. The wallet must hold at least the minimum balance (1) but is not debited: the carrier ' +
    'bills the account. Errors: 400 carrier_rejected (number not offered, credentials refused); 402; 404 no account ' +
    'connected.',
  body: PurchaseBody,
  response: { 201: Envelope(Type.Ref('PhoneNumber')), ...authErrors, ...errors(402, 404, 502, 503) },
};
