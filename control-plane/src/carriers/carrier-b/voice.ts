/**
 * carrier-b (Twilio Programmable Voice + Media Streams) for phone calls:
 *
 * - create  POST /2010-04-01/Accounts/{AccountSid}/Calls.json (To, From, Url, StatusCallback + events, and
 *           MachineDetection when the account has amd) → `sid`
 * - hang up POST …/Calls/{sid}.json Status=completed (a ringing call: canceled)
 * - transfer POST …/Calls/{sid}.json Twiml=<Response><Dial>…</Dial></Response>: the call leaves our stream
 * - answer  `<Connect><Stream url>` naming the call in a <Parameter> (Twilio takes no query string in the URL)
 * - webhooks signed X-Twilio-Signature: base64 HMAC-SHA1 of the full URL then each sorted POST name + value
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

const API_VERSION = '2010-04-01';
/** Lifecycle moments the carrier reports to the status callback: answered moves the record to IN_PROGRESS. */
const STATUS_EVENTS = ['initiated', 'ringing', 'answered', 'completed'];

const ENDS: Record<string, { status: 'COMPLETED' | 'FAILED' | 'CANCELLED'; outcome: string }> = {
  completed: { status: 'COMPLETED', outcome: 'completed' },
  'no-answer': { status: 'COMPLETED', outcome: 'no_answer' },
  busy: { status: 'COMPLETED', outcome: 'busy' },
  failed: { status: 'FAILED', outcome: 'failed' },
  canceled: { status: 'CANCELLED', outcome: 'cancelled' },
};

const callsUrl = (account: VoiceAccount) =>
  `${account.baseUrl}/${API_VERSION}/Accounts/${encodeURIComponent(account.accountId)}/Calls`;

async function send(
  account: VoiceAccount,
  url: string,
  form: Record<string, string | readonly string[]>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await carrierFetch('carrier-b', {
    method: 'POST',
    url,
    headers: { authorization: basicAuth(account.accountId, account.secret) },
    form,
  });
  return { status: response.status, body: (response.body ?? {}) as Record<string, unknown> };
}

function refused(status: number, body: Record<string, unknown>): CarrierError {
  const carrierCode = typeof body.code === 'number' || typeof body.code === 'string' ? body.code : undefined;
  const message = typeof body.message === 'string' && body.message ? body.message : `HTTP ${status}`;
  const code = String(carrierCode) === '20003' ? 'credentials' : errorCodeForStatus(status);
  return new CarrierError('carrier-b', code, message, { status, carrierCode });
}

/** carrier-b's signature of a POST to `url` with `params`. */
export function carrierBSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data =
    url +
    Object.keys(params)
      .sort()
      .map((key) => key + params[key])
      .join('');
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

/** Whether a request says a machine picked up (AnsweredBy of answering-machine detection). */
function answeredByMachine(params: Record<string, string>): boolean {
  return params.AnsweredBy?.startsWith('machine') === true || params.AnsweredBy === 'fax';
}

export const carrierB: VoiceCarrier = {
  name: 'carrier-b',
  media: 'carrier-b',
  signsWebhooks: true,
  statusAck: { contentType: 'text/xml; charset=utf-8', body: '<Response/>' },

  openAccount({ integration, credentials, apiUrl }) {
    if (!credentials.auth_token) return undefined;
    return {
      carrier: 'carrier-b',
      baseUrl: apiUrl,
      accountId: credentials.account_sid ?? integration.accountRef,
      secret: credentials.auth_token,
      amd: integration.config.amd === true,
    };
  },

  async createCall(account, call) {
    const form: Record<string, string | readonly string[]> = {
      To: call.to,
      From: call.from,
      Url: call.urls.answer,
      Method: 'POST',
      StatusCallback: call.urls.status,
      StatusCallbackMethod: 'POST',
      StatusCallbackEvent: STATUS_EVENTS,
    };
    // Detect answering machines before the answer URL is fetched: AnsweredBy then tells a person from a machine.
    if (account.amd) form.MachineDetection = 'Enable';
    const { status, body } = await send(account, `${callsUrl(account)}.json`, form);
    if (status < 200 || status >= 300) throw refused(status, body);
    if (typeof body.sid !== 'string')
      throw new CarrierError('carrier-b', 'invalid_response', 'carrier-b placed a call without a sid');
    return body.sid;
  },

  async hangup(account, callRef) {
    const url = `${callsUrl(account)}/${encodeURIComponent(callRef)}.json`;
    let { status, body } = await send(account, url, { Status: 'completed' });
    // A call still ringing is canceled, not completed (Twilio answers 400 to the other one).
    if (status === 400) ({ status, body } = await send(account, url, { Status: 'canceled' }));
    // 404: the call is gone; 400 again: it ended meanwhile. Either way it is over.
    if (status === 404 || status === 400) return;
    if (status < 200 || status >= 300) throw refused(status, body);
  },

  async transfer(account, callRef, to) {
    // The new instructions travel inline: the carrier leaves our stream and dials at once.
    const { status, body } = await send(account, `${callsUrl(account)}/${encodeURIComponent(callRef)}.json`, {
      Twiml: this.dial(to).body,
    });
    if (status < 200 || status >= 300) throw refused(status, body);
  },

  dial(to) {
    return xmlDocument(`<Dial>${escapeXml(to)}</Dial>`);
  },

  answer(streamUrl, callId) {
    return xmlDocument(
      `<Connect><Stream url="${escapeXml(streamUrl)}"><Parameter name="callId" value="${escapeXml(callId)}"/></Stream></Connect>`,
    );
  },

  refusal(sentence) {
    return xmlDocument(sentence ? `<Say>${escapeXml(sentence)}</Say><Hangup/>` : '<Hangup/>');
  },

  verify(secret, request: WebhookRequest) {
    const signature = headerValue(request.headers, 'x-twilio-signature');
    if (!signature) return false;
    const expected = Buffer.from(
      carrierBSignature(secret, request.url, request.method === 'POST' ? request.params : {}),
    );
    const given = Buffer.from(signature);
    return expected.length === given.length && timingSafeEqual(expected, given);
  },

  progress(params): CarrierProgress {
    const status = params.CallStatus ?? '';
    if (status === 'in-progress' || status === 'answered') return { kind: 'answered' };
    const end = ENDS[status];
    if (!end) return { kind: 'other' };
    const machine = answeredByMachine(params);
    return {
      kind: 'ended',
      status: end.status,
      outcome: machine && status === 'completed' ? 'voicemail' : end.outcome,
      reason: `carrier_${status.replace(/-/g, '_')}`,
      detail: params.SipResponseCode ? `SIP ${params.SipResponseCode}` : null,
    };
  },

  answeredByMachine,

  callRefOf: (params) => params.CallSid || undefined,

  inbound(params) {
    if (!params.From || !params.To) return undefined;
    return { callRef: params.CallSid ?? '', from: params.From, to: params.To, accountId: params.AccountSid };
  },
};
