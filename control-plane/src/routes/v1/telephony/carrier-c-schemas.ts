/** Route schemas of /telephony/carrier-c/… (spec document 2, Telephony and phone numbers). */
import { Type } from '@sinclair/typebox';
import { Envelope, authErrors, errors } from '../../../http/schemas.ts';
import { TAGS } from './schemas.ts';
import { ConnectBody, SyncBody } from '../../../carriers/carrier-c/types.ts';
export { ConnectBody, SyncBody } from '../../../carriers/carrier-c/types.ts';

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Synced = Type.Object({
  remoteCount: Count('Numbers on the account, as read (every entry listed)'),
  synced: Count('Voice numbers imported or refreshed for this account'),
  skipped: Count('Numbers not taken: without voice, not in E.164, or active in the organisation on another carrier'),
  needsSetup: Count('Numbers answering through another flow: imported as NEEDS_SETUP and left alone at the carrier'),
  routed: Count('Numbers pointed at the appId flow by this request'),
  deactivated: Count(
    'Numbers gone from the account (only after a whole read), and numbers of a replaced account retired',
  ),
  complete: Type.Boolean({
    description:
      'Whether every page was read. When false (a later page failed) what was read is imported and nothing is ' +
      'deactivated: sync again',
  }),
});

export const connect = {
  tags: TAGS,
  summary:
    "Connect the organisation's own carrier-c account, import its numbers (all pages) and point them at the appId flow",
  description:
    'Needs a funded wallet (402) and self-serve telephony (403). Credentials are always sent: reconnecting replaces ' +
    'them (and the appId, subdomain and label). Each voice number without a flow, or on the flow of the previous appId, ' +
    'is pointed at `appId` (VoiceUrl `http://my.exotel.com/{accountSid}/exoml/start_voice/{appId}`): the carrier takes ' +
    "no other webhook for a number, so that flow's streaming applet is what reaches Parley. A number on another flow is " +
    'imported as NEEDS_SETUP and left alone until assigned to an agent. `metadata.routing` of each number records what ' +
    "was done. Connecting another accountSid retires the previous account's numbers (409 numbers_in_use while an agent " +
    'answers on or dials out from one). Errors: 400 subdomain_not_allowed, 400 carrier_rejected (credentials refused); ' +
    "409 change_in_progress, change_timed_out, numbers_in_use; 429 also the carrier's own rate limit; 502 the carrier " +
    'could not be reached or gave an invalid answer; 503 lock_unavailable (nothing changed).',
  body: ConnectBody,
  response: {
    201: Envelope(Type.Object({ integration: Type.Ref('TelephonyIntegration'), synced: Synced })),
    ...authErrors,
    ...errors(402, 404, 409, 502, 503),
  },
};

export const sync = {
  tags: TAGS,
  summary: 'Re-read every number of the connected carrier-c account (all pages), reconcile and route as connect does',
  description:
    'Needs a funded wallet (402) and a connected account (404). Imports new numbers, refreshes present ones, points ' +
    'unrouted ones at the connected appId flow and deactivates numbers gone from the account (only when every page was ' +
    'read). Errors as connect: 400 carrier_rejected, 409, 429, 502, 503.',
  body: SyncBody,
  response: {
    200: Envelope(Type.Object({ synced: Synced })),
    ...authErrors,
    ...errors(402, 404, 409, 502, 503),
  },
};
