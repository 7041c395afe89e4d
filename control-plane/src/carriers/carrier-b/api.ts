/**
 * carrier-b's REST API (Twilio-style, API version 2010-04-01), on the customer's own account:
 * - GET  /2010-04-01/Accounts/{AccountSid}/IncomingPhoneNumbers.json          numbers, paged by next_page_uri
 * - GET  /2010-04-01/Accounts/{AccountSid}/AvailablePhoneNumbers/{Country}/{Local|Mobile|TollFree}.json
 * - POST /2010-04-01/Accounts/{AccountSid}/IncomingPhoneNumbers.json          buy (PhoneNumber, VoiceUrl, VoiceMethod)
 * - POST /2010-04-01/Accounts/{AccountSid}/IncomingPhoneNumbers/{Sid}.json    update (VoiceUrl…)
 * HTTP basic authentication with AccountSid:AuthToken; form-encoded requests; JSON answers; errors are
 * `{ code, message, more_info, status }`.
 */
import { basicAuth, carrierFetch, type CarrierRequest } from '../carrier-http.ts';
import {
  CarrierError,
  errorCodeForStatus,
  type CarrierAccount,
  type InboundRouting,
  type NumberAtCarrier,
  type RemoteNumber,
} from '../../telephony/carrier.ts';
import { isE164 } from '../../http/e164.ts';

const PROVIDER = 'carrier-b';
const API_VERSION = '2010-04-01';
/** The carrier's largest page: the fewest round trips for a large account. */
const LIST_PAGE_SIZE = 1000;
/**
 * Bound on pages followed in one read (1,000,000 numbers at full pages): a carrier that keeps answering with a
 * next page, by fault or by malice, must not keep a request running forever.
 */
const MAX_PAGES = 1000;
/** Search results asked of the carrier per number type: the spec returns up to 20. */
export const SEARCH_LIMIT = 20;

export const NUMBER_TYPES = ['Local', 'Mobile', 'TollFree'] as const;
export type NumberType = (typeof NUMBER_TYPES)[number];

export interface CarrierBCredentials {
  /** `AC` and 32 hexadecimal characters. */
  accountSid: string;
  authToken: string;
}

export interface CarrierBOptions {
  /** API base URL (PARLEY_CARRIER_B_API_URL), without a trailing slash. */
  baseUrl: string;
  credentials: CarrierBCredentials;
  /** Parley's inbound voice webhook for carrier-b: numbers already pointing there read as routed to Parley. */
  parleyVoiceUrl: string;
  timeoutMs?: number;
}

/** A number for sale, as search returns it (spec document 2, carrier-b search). */
export interface AvailableNumber {
  phoneNumber: string;
  friendlyName: string | null;
  locality: string | null;
  region: string | null;
  capabilities: { voice: boolean; SMS: boolean; MMS: boolean };
}

export interface SearchFilters {
  areaCode?: string;
  contains?: string;
  limit?: number;
}

/** The incoming-number resource, as far as Parley reads it. */
interface IncomingNumberResource {
  sid: string;
  phone_number: string;
  friendly_name?: string | null;
  voice_url?: string | null;
  voice_application_sid?: string | null;
  trunk_sid?: string | null;
  capabilities?: Record<string, unknown> | null;
}

export class CarrierBClient implements CarrierAccount {
  readonly #options: CarrierBOptions;
  readonly #accountPath: string;

  constructor(options: CarrierBOptions) {
    this.#options = options;
    this.#accountPath = `/${API_VERSION}/Accounts/${encodeURIComponent(options.credentials.accountSid)}`;
  }

  /**
   * Every page of the account's incoming numbers, in the carrier's order, following next_page_uri. A page that
   * cannot be read throws; the pages before it have been yielded already (the reconciler decides what a partial
   * read may change).
   */
  async *incomingNumbers(signal?: AbortSignal): AsyncGenerator<RemoteNumber[]> {
    const listPath = `${this.#accountPath}/IncomingPhoneNumbers.json`;
    let next: string | null = `${listPath}?PageSize=${LIST_PAGE_SIZE}`;
    const seen = new Set<string>();
    for (let page = 0; next !== null; page += 1) {
      if (page >= MAX_PAGES)
        throw new CarrierError(
          PROVIDER,
          'invalid_response',
          `${PROVIDER} listed more than ${MAX_PAGES} pages of numbers`,
        );
      // next_page_uri is a path on the API host; anything else would send the credentials elsewhere.
      if (!next.startsWith(`${listPath}?`) || seen.has(next)) {
        throw new CarrierError(PROVIDER, 'invalid_response', `${PROVIDER} gave an unusable next_page_uri`);
      }
      seen.add(next);
      const body = await this.#send({ method: 'GET', url: `${this.#options.baseUrl}${next}`, signal });
      const list = (body as { incoming_phone_numbers?: unknown }).incoming_phone_numbers;
      if (!Array.isArray(list))
        throw new CarrierError(
          PROVIDER,
          'invalid_response',
          `${PROVIDER} listed numbers without incoming_phone_numbers`,
        );
      yield list.map((item) => this.#remoteNumber(item)).filter((n): n is RemoteNumber => n !== undefined);
      const nextUri = (body as { next_page_uri?: unknown }).next_page_uri;
      next = typeof nextUri === 'string' && nextUri !== '' ? nextUri : null;
    }
  }

  /** The account's number with this E.164 value, if it has it. */
  async findIncoming(phoneNumber: string, signal?: AbortSignal): Promise<RemoteNumber | undefined> {
    const query = new URLSearchParams({ PhoneNumber: phoneNumber, PageSize: '1' });
    const body = await this.#send({
      method: 'GET',
      url: `${this.#url('/IncomingPhoneNumbers.json')}?${query}`,
      signal,
    });
    const list = (body as { incoming_phone_numbers?: unknown }).incoming_phone_numbers;
    if (!Array.isArray(list))
      throw new CarrierError(PROVIDER, 'invalid_response', `${PROVIDER} listed numbers without incoming_phone_numbers`);
    return list.map((item) => this.#remoteNumber(item)).find((n) => n?.phoneNumber === phoneNumber);
  }

  /**
   * Numbers for sale of one type in one country (ISO alpha-2), voice-enabled. undefined when the carrier offers no
   * numbers of that type there (it answers 404).
   */
  async availableNumbers(
    country: string,
    type: NumberType,
    filters: SearchFilters = {},
    signal?: AbortSignal,
  ): Promise<AvailableNumber[] | undefined> {
    const query = new URLSearchParams({ VoiceEnabled: 'true', PageSize: String(filters.limit ?? SEARCH_LIMIT) });
    if (filters.areaCode) query.set('AreaCode', filters.areaCode);
    if (filters.contains) query.set('Contains', filters.contains);
    const url = `${this.#url(`/AvailablePhoneNumbers/${encodeURIComponent(country)}/${type}.json`)}?${query}`;
    let body: unknown;
    try {
      body = await this.#send({ method: 'GET', url, signal });
    } catch (error) {
      if (error instanceof CarrierError && error.code === 'not_found') return undefined;
      throw error;
    }
    const list = (body as { available_phone_numbers?: unknown }).available_phone_numbers;
    if (!Array.isArray(list))
      throw new CarrierError(
        PROVIDER,
        'invalid_response',
        `${PROVIDER} answered a search without available_phone_numbers`,
      );
    return list.flatMap((item) => {
      const n = item as Record<string, unknown>;
      if (typeof n.phone_number !== 'string' || !isE164(n.phone_number)) return [];
      const capabilities = (n.capabilities ?? {}) as Record<string, unknown>;
      return [
        {
          phoneNumber: n.phone_number,
          friendlyName: text(n.friendly_name),
          locality: text(n.locality),
          region: text(n.region),
          capabilities: {
            voice: capabilities.voice === true,
            SMS: capabilities.SMS === true,
            MMS: capabilities.MMS === true,
          },
        },
      ];
    });
  }

  /** Buys the number on the account with its voice webhook at `voiceUrl` (POST); the carrier bills the account. */
  async purchase(phoneNumber: string, voiceUrl: string, signal?: AbortSignal): Promise<RemoteNumber> {
    const body = await this.#send({
      method: 'POST',
      url: this.#url('/IncomingPhoneNumbers.json'),
      form: { PhoneNumber: phoneNumber, VoiceUrl: voiceUrl, VoiceMethod: 'POST' },
      signal,
    });
    const bought = this.#remoteNumber(body);
    if (!bought)
      throw new CarrierError(PROVIDER, 'invalid_response', `${PROVIDER} answered a purchase without the number bought`);
    return bought;
  }

  /**
   * Points the number's voice webhook at `voiceUrl`. An application or SIP trunk on the number would take
   * precedence over the URL, so both are cleared: assigning the number to an agent moves it to Parley.
   */
  async routeInbound(number: NumberAtCarrier, voiceUrl: string, signal?: AbortSignal): Promise<void> {
    const sid = number.providerNumberId ?? (await this.findIncoming(number.phoneNumber, signal))?.providerNumberId;
    if (!sid)
      throw new CarrierError(PROVIDER, 'not_found', `${PROVIDER} has no number ${number.phoneNumber} on this account`);
    await this.#send({
      method: 'POST',
      url: this.#url(`/IncomingPhoneNumbers/${encodeURIComponent(sid)}.json`),
      form: { VoiceUrl: voiceUrl, VoiceMethod: 'POST', VoiceApplicationSid: '', TrunkSid: '' },
      signal,
    });
  }

  #url(path: string): string {
    return `${this.#options.baseUrl}${this.#accountPath}${path}`;
  }

  /** One request; a non-2xx answer becomes a CarrierError carrying the carrier's own code and message. */
  async #send(request: Omit<CarrierRequest, 'headers' | 'timeoutMs'>): Promise<unknown> {
    const { accountSid, authToken } = this.#options.credentials;
    const response = await carrierFetch(PROVIDER, {
      ...request,
      headers: { authorization: basicAuth(accountSid, authToken) },
      timeoutMs: this.#options.timeoutMs,
    });
    if (response.status >= 200 && response.status < 300) {
      if (typeof response.body !== 'object' || response.body === null) {
        throw new CarrierError(
          PROVIDER,
          'invalid_response',
          `${PROVIDER} answered HTTP ${response.status} without a JSON object`,
        );
      }
      return response.body;
    }
    const error = (response.body ?? {}) as { code?: unknown; message?: unknown };
    const carrierCode = typeof error.code === 'number' || typeof error.code === 'string' ? error.code : undefined;
    const message = typeof error.message === 'string' && error.message ? error.message : `HTTP ${response.status}`;
    // 20003 is "Authenticate": credentials refused, whatever status a proxy put on it.
    const code = String(carrierCode) === '20003' ? 'credentials' : errorCodeForStatus(response.status);
    throw new CarrierError(PROVIDER, code, message, { status: response.status, carrierCode });
  }

  #remoteNumber(item: unknown): RemoteNumber | undefined {
    const n = item as Partial<IncomingNumberResource> | null;
    if (!n || typeof n.sid !== 'string' || typeof n.phone_number !== 'string') {
      throw new CarrierError(PROVIDER, 'invalid_response', `${PROVIDER} listed a number without sid or phone_number`);
    }
    // Short codes and other non-E.164 entries are not phone numbers Parley can route.
    if (!isE164(n.phone_number)) return undefined;
    const flags = Object.fromEntries(
      Object.entries(n.capabilities ?? {}).filter(([, v]) => typeof v === 'boolean'),
    ) as Record<string, boolean>;
    return {
      providerNumberId: n.sid,
      phoneNumber: n.phone_number,
      friendlyName: text(n.friendly_name),
      countryCode: null,
      capabilities: { voice: flags.voice === true, sms: flags.sms === true || flags.SMS === true },
      type: null,
      region: null,
      carrierCapabilities: flags,
      inbound: this.#inbound(n),
    };
  }

  #inbound(n: Partial<IncomingNumberResource>): InboundRouting {
    if (text(n.voice_application_sid) || text(n.trunk_sid)) return 'elsewhere';
    const url = text(n.voice_url);
    if (!url) return 'unset';
    return url === this.#options.parleyVoiceUrl ? 'parley' : 'elsewhere';
  }
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
