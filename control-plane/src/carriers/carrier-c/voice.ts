/**
 * carrier-c (Exotel Voice v1 + voicebot streams) for phone calls:
 *
 * - create   POST /v1/Accounts/{sid}/Calls/connect.json (form: From = the number dialled, CallerId = ours,
 *            StreamUrl + StreamType=bidirectional — Connect Voice AI: the answered call streams straight to the
 *            engine — StatusCallback with StatusCallbackEvents[] terminal and answered) → `Call.Sid`
 * - hang up  the carrier has no API to end a streamed call: the call ends when its stream closes, which the engine
 *            does when it ends the session
 * - transfer not offered by the carrier's API for a call in progress (refused; the agent stays on the line)
 * - answer   the Voicebot applet of an inbound flow GETs our voice URL and reads `{ "url": "wss://…" }`
 * - webhooks the carrier does not sign them: each URL Parley gives it carries `token`, an HMAC-SHA256 of its path
 *            keyed by the account's API token, and a request without the right one is refused
 *
 * Exotel writes Indian numbers in national form (`09876543210`); they are read back as E.164 here.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { basicAuth, carrierFetch } from '../carrier-http.ts';
import { DEFAULT_SUBDOMAIN, isCarrierCSubdomain, regionalBaseUrl } from './api.ts';
import { CarrierError, errorCodeForStatus } from '../../telephony/carrier.ts';
import type { CarrierProgress, VoiceAccount, VoiceCarrier, WebhookRequest } from '../voice-carrier.ts';

const ENDS: Record<string, { status: 'COMPLETED' | 'FAILED' | 'CANCELLED'; outcome: string }> = {
  completed: { status: 'COMPLETED', outcome: 'completed' },
  busy: { status: 'COMPLETED', outcome: 'busy' },
  'no-answer': { status: 'COMPLETED', outcome: 'no_answer' },
  failed: { status: 'FAILED', outcome: 'failed' },
  canceled: { status: 'CANCELLED', outcome: 'cancelled' },
};

/** The URL token of carrier-c's webhooks: HMAC-SHA256 of the URL's path, keyed by the account's API token. */
export function carrierCUrlToken(secret: string, url: string): string {
  return createHmac('sha256', secret).update(new URL(url).pathname, 'utf8').digest('base64url');
}

/** `url` carrying its token. */
export function withCarrierCToken(secret: string, url: string): string {
  const target = new URL(url);
  target.searchParams.set('token', carrierCUrlToken(secret, url));
  return target.toString();
}

/** A number as Exotel writes it, as E.164: national Indian form (leading 0) gets +91. */
export function exotelE164(number: string | undefined): string | undefined {
  const value = number?.trim();
  if (!value) return undefined;
  if (value.startsWith('+')) return value;
  const digits = value.replace(/\D/g, '');
  if (/^0\d{10}$/.test(digits)) return `+91${digits.slice(1)}`;
  return /^\d{11,15}$/.test(digits) ? `+${digits}` : value;
}

function refused(status: number, body: unknown): CarrierError {
  const message = (body as { RestException?: { Message?: unknown } } | undefined)?.RestException?.Message;
  return new CarrierError(
    'carrier-c',
    errorCodeForStatus(status),
    typeof message === 'string' && message ? message : `HTTP ${status}`,
    { status },
  );
}

export const carrierC: VoiceCarrier = {
  name: 'carrier-c',
  media: 'carrier-c',
  signsWebhooks: false,
  statusAck: { contentType: 'application/json', body: '{}' },

  openAccount({ integration, credentials, apiUrl }) {
    if (!credentials.api_key || !credentials.api_token) return undefined;
    // The account lives in one region; its subdomain was chosen at connect.
    const subdomain = integration.config.subdomain;
    return {
      carrier: 'carrier-c',
      baseUrl: regionalBaseUrl(
        apiUrl,
        typeof subdomain === 'string' && isCarrierCSubdomain(subdomain) ? subdomain : DEFAULT_SUBDOMAIN,
      ),
      accountId: credentials.account_sid ?? integration.accountRef,
      apiKey: credentials.api_key,
      secret: credentials.api_token,
      amd: false,
    };
  },

  async createCall(account: VoiceAccount, call) {
    const response = await carrierFetch('carrier-c', {
      method: 'POST',
      url: `${account.baseUrl}/v1/Accounts/${encodeURIComponent(account.accountId)}/Calls/connect.json`,
      headers: { authorization: basicAuth(account.apiKey ?? account.accountId, account.secret) },
      form: {
        From: call.to,
        CallerId: call.from,
        StreamUrl: call.streamUrl,
        StreamType: 'bidirectional',
        StatusCallback: withCarrierCToken(account.secret, call.urls.status),
        'StatusCallbackEvents[]': ['terminal', 'answered'],
      },
    });
    if (response.status < 200 || response.status >= 300) throw refused(response.status, response.body);
    const sid = (response.body as { Call?: { Sid?: unknown } } | undefined)?.Call?.Sid;
    if (typeof sid !== 'string')
      throw new CarrierError('carrier-c', 'invalid_response', 'carrier-c placed a call without a Sid');
    return sid;
  },

  async hangup() {
    // Nothing to ask the carrier: the call ends with its stream (see the file's comment).
  },

  async transfer() {
    throw new CarrierError('carrier-c', 'rejected', 'carrier-c cannot transfer a call in progress');
  },

  dial(to) {
    return {
      contentType: 'application/json',
      body: JSON.stringify({ error: `carrier-c cannot dial ${to} from a stream` }),
    };
  },

  answer(streamUrl) {
    return { contentType: 'application/json', body: JSON.stringify({ url: streamUrl }) };
  },

  refusal() {
    // The applet speaks nothing of its own: without a stream URL it fails and the flow's next step hangs up.
    return { contentType: 'application/json', body: JSON.stringify({ url: null }) };
  },

  verify(secret, request: WebhookRequest) {
    const given = new URL(request.url).searchParams.get('token');
    if (!given) return false;
    const expected = Buffer.from(carrierCUrlToken(secret, request.url));
    const actual = Buffer.from(given);
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  },

  progress(params): CarrierProgress {
    const status = params.Status ?? '';
    if (status === 'in-progress' || params.EventType === 'answered') return { kind: 'answered' };
    const end = ENDS[status];
    if (!end) return { kind: 'other' };
    return {
      kind: 'ended',
      status: end.status,
      outcome: end.outcome,
      reason: `carrier_${status.replace(/-/g, '_')}`,
      detail: null,
    };
  },

  callRefOf: (params) => params.CallSid || undefined,

  inbound(params) {
    const from = exotelE164(params.CallFrom ?? params.From);
    const to = exotelE164(params.CallTo ?? params.To);
    if (!from || !to) return undefined;
    return { callRef: params.CallSid ?? '', from, to };
  },
};
