/**
 * What placing and answering phone calls needs of a carrier, the same for each (docs/architecture.md §3 steps 1–2, §5): create
 * the call over its REST API, hang it up or transfer it there, write the answer document that opens the media
 * stream to the engine, check that a webhook really came from the carrier, and read its status callbacks.
 *
 * Each carrier implements it in its own folder (carriers/<carrier>/voice.ts: carrier-a Plivo, carrier-b Twilio,
 * carrier-c Exotel), beside its REST client (api.ts) and its number management (numbers.ts); the folder's index.ts is
 * the carrier's one CarrierModule (carrier-module.ts). This is the voice side only.
 */
import type { MediaCarrier } from '@parley/engine';
import type { StoredIntegration } from '../telephony/integrations.ts';

export const VOICE_CARRIERS = ['carrier-a', 'carrier-b', 'carrier-c'] as const;
export type VoiceCarrierName = (typeof VOICE_CARRIERS)[number];

export function isVoiceCarrier(value: string): value is VoiceCarrierName {
  return (VOICE_CARRIERS as readonly string[]).includes(value);
}

/** An organisation's connected account at the carrier, opened for use. */
export interface VoiceAccount {
  carrier: VoiceCarrierName;
  /** The carrier's REST API base URL, without a trailing slash. */
  baseUrl: string;
  /** carrier-a auth_id, carrier-b AccountSid, carrier-c AccountSid. */
  accountId: string;
  /** carrier-c's API key (its basic-auth user); the others authenticate with accountId. */
  apiKey?: string;
  /** The secret the account signs and authenticates with: auth token (carrier-a, carrier-b), API token (carrier-c). */
  secret: string;
  /** Answering-machine detection on outbound calls (carrier-b). */
  amd: boolean;
}

/** Parley's URLs of one outbound call. */
export interface CallUrls {
  /** Where the carrier fetches the answer document once the callee picks up. */
  answer: string;
  /** Where the carrier reports the call's progress and end. */
  status: string;
}

export interface NewCarrierCall {
  to: string;
  from: string;
  urls: CallUrls;
  /** The engine's media stream URL (one-use token inside): carrier-c streams straight to it, without an answer URL. */
  streamUrl: string;
}

/** A webhook request as the carrier sent it. */
export interface WebhookRequest {
  method: string;
  /** The full public URL the carrier called (PARLEY_PUBLIC_URL + path and query): what it signed. */
  url: string;
  /** Form parameters of a POST (none for GET: the query is part of `url`). */
  params: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
}

/** What a status callback says about the call. */
export type CarrierProgress =
  | { kind: 'answered' }
  | {
      kind: 'ended';
      status: 'COMPLETED' | 'FAILED' | 'CANCELLED';
      outcome: string;
      reason: string;
      detail: string | null;
    }
  | { kind: 'other' };

/** An inbound call, as the carrier's voice webhook names it. */
export interface InboundCall {
  /** The carrier's id of the call. */
  callRef: string;
  from: string;
  /** Our number that was called. */
  to: string;
  /** The account the number belongs to, when the carrier says (carrier-b AccountSid). */
  accountId?: string;
}

/** A document the carrier reads: XML for carrier-a and carrier-b, JSON for carrier-c's voicebot applet. */
export interface CarrierDocument {
  contentType: string;
  body: string;
}

/** A connected account as voice-accounts.ts hands it to a carrier to open. */
export interface StoredVoiceAccount {
  integration: StoredIntegration;
  /** The integration's credentials in clear, by config key (auth_token…). */
  credentials: Record<string, string>;
  /** This server's base URL of the carrier's REST API, without a trailing slash. */
  apiUrl: string;
}

export interface VoiceCarrier {
  readonly name: VoiceCarrierName;
  /** The media protocol the carrier streams with (engine/src/transports/carrier-ws). */
  readonly media: MediaCarrier;
  /** Whether the carrier signs its webhooks; the unsigned one's are authorised by a token in their URL instead. */
  readonly signsWebhooks: boolean;
  /** What Parley answers a status callback with: an empty document of the kind the carrier reads. */
  readonly statusAck: CarrierDocument;
  /** The account for placing and answering calls; undefined when the stored credentials are incomplete. */
  openAccount(stored: StoredVoiceAccount): VoiceAccount | undefined;
  /** Asks the carrier to place the call; answers its id of it. A refusal throws CarrierError with its message. */
  createCall(account: VoiceAccount, call: NewCarrierCall): Promise<string>;
  /** Hangs up a call in progress (or cancels one still ringing). A call that is already over is not an error. */
  hangup(account: VoiceAccount, callRef: string): Promise<void>;
  /**
   * Moves the caller to `to` (E.164): the agent's leg ends, the caller is connected to the number dialled. A carrier
   * that fetches its instructions reads `dial(to)` from `dialUrl`.
   */
  transfer(account: VoiceAccount, callRef: string, to: string, dialUrl: string): Promise<void>;
  /** The document that connects the caller to `to`. */
  dial(to: string): CarrierDocument;
  /** The answer that connects the call to the engine's media stream. */
  answer(streamUrl: string, callId: string): CarrierDocument;
  /** A polite spoken refusal, then a hang-up (an empty sentence: the hang-up alone); a carrier that cannot speak without a stream just hangs up. */
  refusal(sentence: string): CarrierDocument;
  /** Whether `request` carries the account's valid signature. */
  verify(secret: string, request: WebhookRequest): boolean;
  /** Whether answering-machine detection says a machine picked up (only carriers that detect: carrier-b). */
  answeredByMachine?(params: Record<string, string>): boolean;
  /** Reads a status callback. */
  progress(params: Record<string, string>): CarrierProgress;
  /** The carrier's id of the call a webhook is about, when it names one. */
  callRefOf(params: Record<string, string>): string | undefined;
  /** Reads the inbound voice webhook; undefined when it lacks the numbers. */
  inbound(params: Record<string, string>): InboundCall | undefined;
}

const XML_PROLOGUE = '<?xml version="1.0" encoding="UTF-8"?>';

export function escapeXml(text: string): string {
  return text.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!,
  );
}

/** An XML answer document. */
export function xmlDocument(inner: string): CarrierDocument {
  return { contentType: 'text/xml; charset=utf-8', body: `${XML_PROLOGUE}<Response>${inner}</Response>` };
}

/** Header value as one string (the first, when repeated). */
export function headerValue(headers: WebhookRequest['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
