/**
 * carrier-a (Plivo Voice API + audio streams) for phone calls:
 *
 * - create   POST /v1/Account/{auth_id}/Call/ (JSON: from, to, answer_url, hangup_url, ring_url) → `request_uuid`;
 *            the call's own CallUUID arrives with the answer request and is kept then
 * - hang up  DELETE /v1/Account/{auth_id}/Call/{uuid}/ → 204
 * - transfer POST /v1/Account/{auth_id}/Call/{uuid}/ (legs aleg, aleg_url): the carrier fetches aleg_url, whose XML
 *            dials the new number
 * - answer   `<Stream bidirectional="true" keepCallAlive="true" contentType="audio/x-mulaw;rate=8000">wss://…</Stream>`;
 *            keepCallAlive means the call outlives the stream, so ending a call always hangs it up over the API
 * - webhooks signed X-Plivo-Signature-V3 (+ nonce): base64 HMAC-SHA256 of the URL (query sorted) then the sorted
 *            POST parameters, `.`, the nonce — the scheme of plivo-node's validateV3Signature
 *
 * Plivo writes numbers without the leading `+`; they are read back as E.164 here.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { basicAuth, carrierFetch } from '../carrier-http.ts';
import { CarrierError, errorCodeForStatus } from '../../telephony/carrier.ts';
import {
  escapeXml,
  headerValue,
  xmlDocument,
  type CarrierProgress,
  type VoiceAccount,
  type VoiceCarrier,
  type WebhookRequest,
} from '../voice-carrier.ts';

/** The hangup_url's CallStatus values that end a call, and what they mean for the record. */
const ENDS: Record<string, { status: 'COMPLETED' | 'FAILED' | 'CANCELLED'; outcome: string }> = {
  completed: { status: 'COMPLETED', outcome: 'completed' },
  busy: { status: 'COMPLETED', outcome: 'busy' },
  'no-answer': { status: 'COMPLETED', outcome: 'no_answer' },
  timeout: { status: 'COMPLETED', outcome: 'no_answer' },
  failed: { status: 'FAILED', outcome: 'failed' },
  cancel: { status: 'CANCELLED', outcome: 'cancelled' },
};

const accountUrl = (account: VoiceAccount) => `${account.baseUrl}/v1/Account/${encodeURIComponent(account.accountId)}`;

function refused(status: number, body: unknown): CarrierError {
  const error = (body as { error?: unknown } | undefined)?.error;
  const message = typeof error === 'string' && error ? error : `HTTP ${status}`;
  return new CarrierError('carrier-a', errorCodeForStatus(status), message, { status });
}

/** Plivo's number (digits, maybe with `+`) as E.164. */
export function e164(number: string | undefined): string | undefined {
  if (!number) return undefined;
  const digits = number.trim().replace(/^\+/, '');
  return /^\d{7,15}$/.test(digits) ? `+${digits}` : number.trim();
}

const byName = ([a, x]: [string, string], [b, y]: [string, string]) =>
  a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1;

/** carrier-a's V3 signature of a `method` request to `url` with POST `params`, for `nonce`. */
export function carrierASignature(
  authToken: string,
  method: string,
  url: string,
  nonce: string,
  params: Record<string, string>,
): string {
  const parsed = new URL(url);
  const base = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  const query = [...parsed.searchParams.entries()];
  let signed: string;
  if (method.toUpperCase() === 'GET') {
    const all = [...query, ...Object.entries(params)].sort(byName);
    signed = all.length ? `${base}?${all.map(([k, v]) => `${k}=${v}`).join('&')}` : base;
  } else {
    const sortedQuery = query
      .sort(byName)
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    const hasParams = Object.keys(params).length > 0;
    signed = base;
    if (sortedQuery || hasParams) signed += `?${sortedQuery}`;
    if (sortedQuery && hasParams) signed += '.';
    signed += Object.keys(params)
      .sort()
      .map((key) => key + params[key])
      .join('');
  }
  return createHmac('sha256', authToken).update(`${signed}.${nonce}`, 'utf8').digest('base64');
}

export const carrierA: VoiceCarrier = {
  name: 'carrier-a',
  media: 'carrier-a',
  signsWebhooks: true,
  statusAck: { contentType: 'text/xml; charset=utf-8', body: '<Response/>' },

  openAccount({ integration, credentials, apiUrl }) {
    if (!credentials.auth_token) return undefined;
    const accountId = credentials.auth_id ?? integration.accountRef;
    return { carrier: 'carrier-a', baseUrl: apiUrl, accountId, secret: credentials.auth_token, amd: false };
  },

  async createCall(account, call) {
    const response = await carrierFetch('carrier-a', {
      method: 'POST',
      url: `${accountUrl(account)}/Call/`,
      headers: { authorization: basicAuth(account.accountId, account.secret) },
      json: {
        from: call.from.replace(/^\+/, ''),
        to: call.to.replace(/^\+/, ''),
        answer_url: call.urls.answer,
        answer_method: 'POST',
        hangup_url: call.urls.status,
        hangup_method: 'POST',
        ring_url: call.urls.status,
        ring_method: 'POST',
      },
    });
    if (response.status < 200 || response.status >= 300) throw refused(response.status, response.body);
    const requestUuid = (response.body as { request_uuid?: unknown } | undefined)?.request_uuid;
    if (typeof requestUuid !== 'string')
      throw new CarrierError('carrier-a', 'invalid_response', 'carrier-a placed a call without a request_uuid');
    return requestUuid;
  },

  async hangup(account, callRef) {
    const response = await carrierFetch('carrier-a', {
      method: 'DELETE',
      url: `${accountUrl(account)}/Call/${encodeURIComponent(callRef)}/`,
      headers: { authorization: basicAuth(account.accountId, account.secret) },
    });
    // 404: the call is over already.
    if (response.status === 404 || (response.status >= 200 && response.status < 300)) return;
    throw refused(response.status, response.body);
  },

  async transfer(account, callRef, _to, dialUrl) {
    const response = await carrierFetch('carrier-a', {
      method: 'POST',
      url: `${accountUrl(account)}/Call/${encodeURIComponent(callRef)}/`,
      headers: { authorization: basicAuth(account.accountId, account.secret) },
      json: { legs: 'aleg', aleg_url: dialUrl, aleg_method: 'POST' },
    });
    if (response.status < 200 || response.status >= 300) throw refused(response.status, response.body);
  },

  dial(to) {
    return xmlDocument(`<Dial><Number>${escapeXml(to.replace(/^\+/, ''))}</Number></Dial>`);
  },

  answer(streamUrl, callId) {
    return xmlDocument(
      '<Stream bidirectional="true" keepCallAlive="true" contentType="audio/x-mulaw;rate=8000" ' +
        `extraHeaders="callId=${escapeXml(callId)}">${escapeXml(streamUrl)}</Stream>`,
    );
  },

  refusal(sentence) {
    return xmlDocument(sentence ? `<Speak>${escapeXml(sentence)}</Speak><Hangup/>` : '<Hangup/>');
  },

  verify(secret, request: WebhookRequest) {
    const nonce = headerValue(request.headers, 'x-plivo-signature-v3-nonce');
    const header = headerValue(request.headers, 'x-plivo-signature-v3');
    if (!nonce || !header) return false;
    const expected = Buffer.from(
      carrierASignature(secret, request.method, request.url, nonce, request.method === 'GET' ? {} : request.params),
    );
    // Plivo sends one signature per auth token of the account, comma-separated: any one may match.
    return header.split(',').some((candidate) => {
      const given = Buffer.from(candidate.trim());
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  },

  progress(params): CarrierProgress {
    const status = params.CallStatus ?? '';
    if (params.Event === 'StartStream' || params.Event === 'StopStream') return { kind: 'other' };
    if (status === 'in-progress') return { kind: 'answered' };
    const end = params.Event === 'Hangup' || ENDS[status] ? (ENDS[status] ?? ENDS.completed!) : undefined;
    if (!end) return { kind: 'other' };
    return {
      kind: 'ended',
      status: end.status,
      outcome: end.outcome,
      reason: `carrier_${(status || 'completed').replace(/-/g, '_')}`,
      detail: params.HangupCauseName || params.HangupCause || null,
    };
  },

  callRefOf: (params) => params.CallUUID || undefined,

  inbound(params) {
    const from = e164(params.From);
    const to = e164(params.To);
    if (!from || !to) return undefined;
    return { callRef: params.CallUUID ?? '', from, to };
  },
};
