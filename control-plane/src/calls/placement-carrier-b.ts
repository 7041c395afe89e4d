/**
 * carrier-b (Twilio Programmable Voice) for call placement: creating the outbound call over its REST API, the
 * answer TwiML that connects the call to the engine's media stream (DESIGN.md §5), and the check of the
 * X-Twilio-Signature every webhook of the carrier carries.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { basicAuth, carrierFetch } from '../integrations/carriers/carrier-http.ts';
import { CarrierError, errorCodeForStatus } from '../integrations/carriers/carrier.ts';

const PROVIDER = 'carrier-b';
const API_VERSION = '2010-04-01';
/** Lifecycle moments the carrier reports to the status callback: answered moves the record to IN_PROGRESS. */
const STATUS_EVENTS = ['initiated', 'ringing', 'answered', 'completed'];

export interface CarrierBAccount {
  /** PARLEY_CARRIER_B_API_URL, without a trailing slash. */
  baseUrl: string;
  accountSid: string;
  authToken: string;
}

export interface CarrierBCallRequest {
  to: string;
  from: string;
  /** Parley's answer URL of the call. */
  url: string;
  statusCallback: string;
}

/** Asks carrier-b to place the call; answers its CallSid. A refusal throws CarrierError with the carrier's message. */
export async function createCarrierBCall(account: CarrierBAccount, call: CarrierBCallRequest, signal?: AbortSignal): Promise<string> {
  const response = await carrierFetch(PROVIDER, {
    method: 'POST',
    url: `${account.baseUrl}/${API_VERSION}/Accounts/${encodeURIComponent(account.accountSid)}/Calls.json`,
    headers: { authorization: basicAuth(account.accountSid, account.authToken) },
    form: {
      To: call.to,
      From: call.from,
      Url: call.url,
      Method: 'POST',
      StatusCallback: call.statusCallback,
      StatusCallbackMethod: 'POST',
      StatusCallbackEvent: STATUS_EVENTS,
    },
    signal,
  });
  const body = (response.body ?? {}) as { sid?: unknown; code?: unknown; message?: unknown };
  if (response.status >= 200 && response.status < 300) {
    if (typeof body.sid !== 'string') throw new CarrierError(PROVIDER, 'invalid_response', `${PROVIDER} placed a call without a sid`);
    return body.sid;
  }
  const carrierCode = typeof body.code === 'number' || typeof body.code === 'string' ? body.code : undefined;
  const message = typeof body.message === 'string' && body.message ? body.message : `HTTP ${response.status}`;
  throw new CarrierError(PROVIDER, String(carrierCode) === '20003' ? 'credentials' : errorCodeForStatus(response.status), message, { status: response.status, carrierCode });
}

const XML_PROLOGUE = '<?xml version="1.0" encoding="UTF-8"?>';

export function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/** TwiML that hangs up at once: a call whose stream was taken already, or that has ended. */
export function hangupXml(): string {
  return `${XML_PROLOGUE}<Response><Hangup/></Response>`;
}

/** TwiML of a polite refusal: the sentence is said, then the call hung up. */
export function refusalXml(sentence: string): string {
  return `${XML_PROLOGUE}<Response><Say>${escapeXml(sentence)}</Say><Hangup/></Response>`;
}

/** The answer TwiML: connect the call to the engine's media stream, naming the call to it. */
export function carrierBAnswer(streamUrl: string, callId: string): string {
  return `${XML_PROLOGUE}<Response><Connect>`
    + `<Stream url="${escapeXml(streamUrl)}"><Parameter name="callId" value="${escapeXml(callId)}"/></Stream>`
    + '</Connect></Response>';
}

/** carrier-b's signature of a POST to `url` with `params`: base64 HMAC-SHA1 of the URL then each sorted name + value. */
export function carrierBSignature(authToken: string, url: string, params: Record<string, string>): string {
  const data = url + Object.keys(params).sort().map((key) => key + params[key]).join('');
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

/** Whether `signature` (the X-Twilio-Signature header) is the account's signature of this request. */
export function verifyCarrierBSignature(authToken: string, url: string, params: Record<string, string>, signature: string | undefined): boolean {
  if (!signature) return false;
  const expected = Buffer.from(carrierBSignature(authToken, url, params));
  const given = Buffer.from(signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
