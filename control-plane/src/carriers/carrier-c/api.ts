/**
 * carrier-c's REST API (Exotel-style ExoPhones API, v2_beta), on the customer's own account:
 * - GET /v2_beta/Accounts/{AccountSid}/IncomingPhoneNumbers?Page=&PageSize=   numbers, paged (page, page_size,
 *   next_page_uri…; next_page_uri is an absolute URL on the carrier's own host)
 * - PUT /v2_beta/Accounts/{AccountSid}/IncomingPhoneNumbers/{ExoPhoneSid}      VoiceUrl (form): the number's flow
 * HTTP basic authentication with the account's API key and API token (not the SID); answers are JSON; errors are
 * `{ RestException: { Status, Message, Code? } }` (v1 style) or `{ http_code, response: { error_data } }` (v2 style).
 *
 * Two regional clusters serve the API: api.exotel.com (Singapore) and api.in.exotel.com (Mumbai); an account lives
 * in one of them. A number cannot point at an arbitrary webhook: its VoiceUrl names a flow (an "app") built in the
 * carrier's dashboard, `http://my.exotel.com/{AccountSid}/exoml/start_voice/{AppId}`. Parley's inbound route for
 * carrier-c is therefore the customer's `appId` flow, whose streaming applet reaches Parley.
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

const PROVIDER = 'carrier-c';
const API_VERSION = 'v2_beta';

/** The regional API hosts, Singapore first (the default): the only values `subdomain` may take. */
export const CARRIER_C_SUBDOMAINS = ['api.exotel.com', 'api.in.exotel.com'] as const;
export type CarrierCSubdomain = (typeof CARRIER_C_SUBDOMAINS)[number];
export const DEFAULT_SUBDOMAIN: CarrierCSubdomain = CARRIER_C_SUBDOMAINS[0];

/** Written in PARLEY_CARRIER_C_API_URL where the region's host goes (see regionalBaseUrl). */
export const SUBDOMAIN_PLACEHOLDER = '{subdomain}';

/**
 * Numbers asked for per page. The carrier documents 50 as its default page and no maximum; 100 halves the round
 * trips of a large account without betting on an undocumented ceiling.
 */
const LIST_PAGE_SIZE = 100;
/**
 * Bound on pages followed in one read (100,000 numbers at full pages): a carrier that keeps answering with a next
 * page, by fault or by malice, must not keep a request running forever.
 */
const MAX_PAGES = 1000;

export function isCarrierCSubdomain(value: string): value is CarrierCSubdomain {
  return (CARRIER_C_SUBDOMAINS as readonly string[]).includes(value);
}

/**
 * The API base URL of one region, from PARLEY_CARRIER_C_API_URL (`apiUrl`):
 * - a URL containing `{subdomain}` has it replaced by the region's host: `https://{subdomain}` is the real API, and
 *   `http://127.0.0.1:<port>/{subdomain}` lets one contract fake serve both regions under a path prefix;
 * - a URL whose host is one of the regional hosts (the default, https://api.exotel.com) gets the chosen region's
 *   host instead, keeping its scheme, port and path;
 * - any other URL (a proxy of the operator's) serves every region.
 */
export function regionalBaseUrl(apiUrl: string, subdomain: CarrierCSubdomain): string {
  const base = apiUrl.replace(/\/+$/, '');
  if (base.includes(SUBDOMAIN_PLACEHOLDER)) return base.replaceAll(SUBDOMAIN_PLACEHOLDER, subdomain);
  const url = new URL(base);
  if (!isCarrierCSubdomain(url.hostname)) return base;
  url.hostname = subdomain;
  return url.toString().replace(/\/+$/, '');
}

/** The VoiceUrl that sends a number's calls to a flow (app) of the account, as the carrier documents it. */
export function flowVoiceUrl(accountSid: string, appId: string): string {
  return `http://my.exotel.com/${encodeURIComponent(accountSid)}/exoml/start_voice/${encodeURIComponent(appId)}`;
}

export interface CarrierCCredentials {
  accountSid: string;
  apiKey: string;
  apiToken: string;
}

export interface CarrierCOptions {
  /** The region's API base URL (regionalBaseUrl), without a trailing slash. */
  baseUrl: string;
  credentials: CarrierCCredentials;
  /** The customer's flow that answers through Parley: numbers pointing at it read as routed to Parley. */
  appId: string;
  /**
   * Flows Parley pointed numbers at before (the app of the previous connect of this account): numbers still on one
   * of them read as unrouted, so connect and sync move them to `appId` instead of leaving them alone.
   */
  formerAppIds?: readonly string[];
  timeoutMs?: number;
}

/** One page of the account's numbers: those Parley can use, and how many entries it cannot (no E.164 number). */
export interface CarrierCPage {
  numbers: RemoteNumber[];
  unusable: number;
}

/** The ExoPhone resource, as far as Parley reads it. */
interface ExoPhoneResource {
  sid: string;
  phone_number: string;
  friendly_name?: string | null;
  voice_url?: string | null;
  capabilities?: Record<string, unknown> | null;
  country?: string | null;
  region?: string | null;
  number_type?: string | null;
}

export class CarrierCClient implements CarrierAccount {
  readonly #options: CarrierCOptions;
  readonly #accountPath: string;

  constructor(options: CarrierCOptions) {
    this.#options = options;
    this.#accountPath = `/${API_VERSION}/Accounts/${encodeURIComponent(options.credentials.accountSid)}`;
  }

  /** The flow numbers are pointed at. */
  get appId(): string {
    return this.#options.appId;
  }

  /** The flow's VoiceUrl. */
  get voiceUrl(): string {
    return flowVoiceUrl(this.#options.credentials.accountSid, this.#options.appId);
  }

  /**
   * Every page of the account's numbers, following next_page_uri. Only its path and query are used, on this
   * client's own base URL: the carrier writes its internal host there, and the credentials must never go to a
   * host other than the configured one. A page that cannot be read throws; the pages before it have been yielded.
   */
  async *incomingNumbers(signal?: AbortSignal): AsyncGenerator<CarrierCPage> {
    const listPath = `${this.#accountPath}/IncomingPhoneNumbers`;
    let query: string | null = new URLSearchParams({ Page: '0', PageSize: String(LIST_PAGE_SIZE) }).toString();
    const seen = new Set<string>();
    for (let page = 0; query !== null; page += 1) {
      if (page >= MAX_PAGES)
        throw new CarrierError(
          PROVIDER,
          'invalid_response',
          `${PROVIDER} listed more than ${MAX_PAGES} pages of numbers`,
        );
      if (seen.has(query))
        throw new CarrierError(PROVIDER, 'invalid_response', `${PROVIDER} gave a next_page_uri it had given before`);
      seen.add(query);
      const body = await this.#send({ method: 'GET', url: `${this.#options.baseUrl}${listPath}?${query}`, signal });
      const list = (body as { incoming_phone_numbers?: unknown }).incoming_phone_numbers;
      if (!Array.isArray(list))
        throw new CarrierError(
          PROVIDER,
          'invalid_response',
          `${PROVIDER} listed numbers without incoming_phone_numbers`,
        );
      const numbers = list.map((item) => this.#remoteNumber(item));
      yield {
        numbers: numbers.filter((n): n is RemoteNumber => n !== undefined),
        unusable: numbers.filter((n) => n === undefined).length,
      };
      query = nextQuery((body as { next_page_uri?: unknown }).next_page_uri, listPath);
    }
  }

  /**
   * Points the number at the customer's flow (`appId`). `voiceUrl`, Parley's webhook, is not a URL the carrier
   * takes for a number; the flow's streaming applet is what reaches Parley. Idempotent: the flow is the same for
   * every number of the account.
   */
  async routeInbound(number: NumberAtCarrier, _voiceUrl: string, signal?: AbortSignal): Promise<void> {
    const sid = number.providerNumberId ?? (await this.#find(number.phoneNumber, signal))?.providerNumberId;
    if (!sid)
      throw new CarrierError(PROVIDER, 'not_found', `${PROVIDER} has no number ${number.phoneNumber} on this account`);
    await this.#send({
      method: 'PUT',
      url: `${this.#options.baseUrl}${this.#accountPath}/IncomingPhoneNumbers/${encodeURIComponent(sid)}`,
      form: { VoiceUrl: this.voiceUrl },
      signal,
    });
  }

  /** The account's number with this E.164 value, read page by page (the list takes no number filter). */
  async #find(phoneNumber: string, signal?: AbortSignal): Promise<RemoteNumber | undefined> {
    for await (const page of this.incomingNumbers(signal)) {
      const found = page.numbers.find((n) => n.phoneNumber === phoneNumber);
      if (found) return found;
    }
    return undefined;
  }

  /** One request; a non-2xx answer becomes a CarrierError carrying the carrier's own words. */
  async #send(request: Omit<CarrierRequest, 'headers' | 'timeoutMs'>): Promise<unknown> {
    const { apiKey, apiToken } = this.#options.credentials;
    const response = await carrierFetch(PROVIDER, {
      ...request,
      headers: { authorization: basicAuth(apiKey, apiToken) },
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
    const { message, carrierCode } = carrierErrorOf(response.body);
    throw new CarrierError(PROVIDER, errorCodeForStatus(response.status), message ?? `HTTP ${response.status}`, {
      status: response.status,
      carrierCode,
    });
  }

  #remoteNumber(item: unknown): RemoteNumber | undefined {
    const n = item as Partial<ExoPhoneResource> | null;
    if (!n || typeof n.sid !== 'string' || !n.sid || typeof n.phone_number !== 'string') {
      throw new CarrierError(PROVIDER, 'invalid_response', `${PROVIDER} listed a number without sid or phone_number`);
    }
    // A number the carrier lists in a local format is not one Parley can route or match to a caller.
    if (!isE164(n.phone_number)) return undefined;
    const flags = Object.fromEntries(
      Object.entries(n.capabilities ?? {}).filter(([, v]) => typeof v === 'boolean'),
    ) as Record<string, boolean>;
    const country = text(n.country);
    return {
      providerNumberId: n.sid,
      phoneNumber: n.phone_number,
      friendlyName: text(n.friendly_name),
      countryCode: country && /^[A-Z]{2}$/.test(country) ? country : null,
      capabilities: { voice: flags.voice === true, sms: flags.sms === true },
      type: text(n.number_type),
      region: text(n.region),
      carrierCapabilities: flags,
      inbound: this.#inbound(text(n.voice_url)),
    };
  }

  #inbound(voiceUrl: string | null): InboundRouting {
    if (!voiceUrl) return 'unset';
    const app = flowOf(voiceUrl);
    if (app === this.#options.appId) return 'parley';
    if (app !== undefined && this.#options.formerAppIds?.includes(app)) return 'unset';
    return 'elsewhere';
  }
}

/**
 * The flow (app id) a VoiceUrl starts, whatever host or scheme the carrier writes it with: `…/exoml/start_voice/{id}`
 * as documented, or the older `…/exoml/start/{id}`.
 */
function flowOf(voiceUrl: string): string | undefined {
  let path: string;
  try {
    path = new URL(voiceUrl).pathname;
  } catch {
    return undefined;
  }
  const match = /\/exoml\/start(?:_voice)?\/([^/]+)\/?$/.exec(path);
  return match ? decodeURIComponent(match[1]!) : undefined;
}

/** The query of the next page, when next_page_uri names one on the account's own list; null at the last page. */
function nextQuery(nextPageUri: unknown, listPath: string): string | null {
  if (nextPageUri === null || nextPageUri === undefined || nextPageUri === '') return null;
  if (typeof nextPageUri !== 'string')
    throw new CarrierError(PROVIDER, 'invalid_response', `${PROVIDER} gave a next_page_uri that is not a string`);
  let next: URL;
  try {
    next = new URL(nextPageUri, 'http://carrier.invalid');
  } catch (error) {
    throw new CarrierError(PROVIDER, 'invalid_response', `${PROVIDER} gave an unusable next_page_uri`, {
      cause: error,
    });
  }
  // The page link must be the same account's list (a trailing .json is the same resource).
  if (next.pathname.replace(/\.json$/, '') !== listPath || !next.search) {
    throw new CarrierError(
      PROVIDER,
      'invalid_response',
      `${PROVIDER} gave a next_page_uri off the account's list of numbers`,
    );
  }
  return next.search.slice(1);
}

/** The carrier's message and code from an error body, in either of its shapes. */
function carrierErrorOf(body: unknown): { message: string | undefined; carrierCode: string | undefined } {
  const b = (body ?? {}) as Record<string, unknown>;
  const rest = b.RestException as Record<string, unknown> | undefined;
  if (rest && typeof rest === 'object') {
    return { message: text(rest.Message) ?? undefined, carrierCode: scalar(rest.Code) };
  }
  const response = b.response as { error_data?: Record<string, unknown> | null } | undefined;
  const data = response && typeof response === 'object' ? response.error_data : undefined;
  if (data && typeof data === 'object') {
    return { message: text(data.description) ?? text(data.message) ?? undefined, carrierCode: scalar(data.code) };
  }
  return { message: text(b.message) ?? undefined, carrierCode: undefined };
}

function scalar(value: unknown): string | undefined {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
