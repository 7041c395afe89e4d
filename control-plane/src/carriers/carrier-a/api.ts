/**
 * carrier-a's REST API (Plivo-style, v1), on the customer's own account:
 * - GET  /v1/Account/{auth_id}/Number/?limit&offset         numbers, paged by limit/offset with meta {next, total_count}
 * - GET  /v1/Account/{auth_id}/Number/{number}/             one number
 * - POST /v1/Account/{auth_id}/Number/{number}/             update (app_id: the application answering its calls)
 * - GET  /v1/Account/{auth_id}/Application/?limit&offset    applications, paged the same way
 * - GET  /v1/Account/{auth_id}/Application/{app_id}/        one application
 * - POST /v1/Account/{auth_id}/Application/                 create (app_name, answer_url, answer_method, hangup_url…)
 * - POST /v1/Account/{auth_id}/Application/{app_id}/        update
 * HTTP basic authentication with auth_id:auth_token; JSON requests and answers; numbers are written without the
 * leading `+` (`14155550100`); a number's `application` is the path of its application
 * (`/v1/Account/{auth_id}/Application/{app_id}/`) or null; numbers of subaccounts carry `sub_account`; errors are
 * `{ api_id, error }` where `error` is a sentence or an object of field messages.
 *
 * Parley answers a carrier-a account's calls through one application of its own on that account (APPLICATION_NAME),
 * whose answer URL is Parley's inbound voice webhook; routing a number to Parley means setting its app_id to it.
 */
import type { CarrierRequest } from '../carrier-http.ts';
import { carrierARequest, type CarrierACredentials } from './request.ts';
import {
  CarrierError,
  type CarrierAccount,
  type InboundRouting,
  type NumberAtCarrier,
  type RemoteNumber,
} from '../../telephony/carrier.ts';
import { isE164 } from '../../http/e164.ts';

const PROVIDER = 'carrier-a';
const API_VERSION = 'v1';
/** The carrier's largest page of numbers and applications (it refuses more). */
export const LIST_PAGE_SIZE = 20;
/**
 * Bound on pages followed in one read (100,000 numbers at full pages): a carrier that keeps answering with a next
 * page, by fault or by malice, must not keep a request running forever.
 */
const MAX_PAGES = 5000;
/**
 * Name of Parley's application on a customer's account. The carrier allows letters, digits, `-` and `_`; the name is
 * how a later connect finds the application again when its id was never stored (a connect that failed after
 * creating it), so there is only ever one.
 */
export const APPLICATION_NAME = 'parley-voice-agents';

export type { CarrierACredentials } from './request.ts';

export interface CarrierAOptions {
  /** API base URL (PARLEY_CARRIER_A_API_URL), without a trailing slash. */
  baseUrl: string;
  credentials: CarrierACredentials;
  timeoutMs?: number;
}

/** The URLs Parley's application on the account must have. */
export interface ApplicationUrls {
  /** Parley's inbound voice webhook for carrier-a: fetched (POST) when a call reaches a number of the application. */
  answerUrl: string;
  /** Told (POST) when such a call ends. */
  hangupUrl: string;
}

export interface EnsuredApplication {
  appId: string;
  /** Whether this call created it (otherwise it existed, and its URLs were corrected where they differed). */
  created: boolean;
}

/** A number of the account in Parley's terms, with what carrier-a adds. */
export interface CarrierANumber extends RemoteNumber {
  /** The id of the application answering its calls, if any. */
  appId: string | null;
  /** The auth_id of the subaccount it belongs to; null for the main account's own numbers. */
  subaccount: string | null;
}

/** The application resource, as far as Parley reads it. */
interface ApplicationResource {
  app_id: string;
  app_name?: string | null;
  answer_url?: string | null;
  answer_method?: string | null;
  hangup_url?: string | null;
  hangup_method?: string | null;
  sub_account?: string | null;
}

/** The account phone number resource, as far as Parley reads it. */
interface NumberResource {
  number: string;
  alias?: string | null;
  application?: string | null;
  sub_account?: string | null;
  subaccount?: string | null;
  region?: string | null;
  number_type?: string | null;
  voice_enabled?: boolean;
  sms_enabled?: boolean;
  mms_enabled?: boolean;
  object_type?: string | null;
  object_id?: string | null;
}

export class CarrierAClient implements CarrierAccount {
  readonly #options: CarrierAOptions;
  readonly #accountPath: string;
  /** Parley's application as last found on the account, so routing several numbers asks for it once. */
  #knownAppId: string | null;

  /** @param knownAppId the application id stored at the last connect or sync, tried before any search */
  constructor(options: CarrierAOptions, knownAppId: string | null = null) {
    this.#options = options;
    this.#accountPath = `/${API_VERSION}/Account/${encodeURIComponent(options.credentials.authId)}`;
    this.#knownAppId = knownAppId;
  }

  /**
   * Makes sure Parley's application exists on the account with `urls`: the one known by id, else the one named
   * APPLICATION_NAME, else a new one. Its URLs are corrected when they differ. Idempotent: a change that fails after
   * this leaves nothing the next connect or sync would not find again.
   */
  async ensureApplication(urls: ApplicationUrls, signal?: AbortSignal): Promise<EnsuredApplication> {
    let existing = this.#knownAppId ? await this.#application(this.#knownAppId, signal) : undefined;
    existing ??= await this.#applicationNamed(APPLICATION_NAME, signal);
    const wanted = {
      answer_url: urls.answerUrl,
      answer_method: 'POST',
      hangup_url: urls.hangupUrl,
      hangup_method: 'POST',
    };
    if (existing) {
      const differs = (Object.keys(wanted) as (keyof typeof wanted)[]).some((key) => existing[key] !== wanted[key]);
      if (differs)
        await this.#send({
          method: 'POST',
          url: this.#url(`/Application/${encodeURIComponent(existing.app_id)}/`),
          json: wanted,
          signal,
        });
      this.#knownAppId = existing.app_id;
      return { appId: existing.app_id, created: false };
    }
    const body = await this.#send({
      method: 'POST',
      url: this.#url('/Application/'),
      json: { app_name: APPLICATION_NAME, ...wanted },
      signal,
    });
    const appId = (body as { app_id?: unknown }).app_id;
    if (typeof appId !== 'string' && typeof appId !== 'number') {
      throw new CarrierError(PROVIDER, 'invalid_response', `${PROVIDER} created an application without an app_id`);
    }
    this.#knownAppId = String(appId);
    return { appId: String(appId), created: true };
  }

  /**
   * Every page of the account's numbers (the main account's and its subaccounts'), in the carrier's order,
   * following meta.next. A page that cannot be read throws; the pages before it have been yielded already (the
   * reconciler decides what a partial read may change). Offset paging skips a number when one before it is released
   * during the read, so a read that saw fewer numbers than the carrier's final total_count ends with an error too:
   * it is not a whole read, and nothing may be deactivated for it.
   */
  async *accountNumbers(signal?: AbortSignal): AsyncGenerator<CarrierANumber[]> {
    const listPath = `${this.#accountPath}/Number/`;
    let next: string | null = `${listPath}?limit=${LIST_PAGE_SIZE}&offset=0`;
    const seenLinks = new Set<string>();
    let listed = 0;
    let total: number | undefined;
    for (let page = 0; next !== null; page += 1) {
      if (page >= MAX_PAGES)
        throw new CarrierError(
          PROVIDER,
          'invalid_response',
          `${PROVIDER} listed more than ${MAX_PAGES} pages of numbers`,
        );
      const body = await this.#page(listPath, next, seenLinks, signal);
      listed += body.objects.length;
      total = body.totalCount ?? total;
      yield body.objects.map((item) => this.#number(item)).filter((n): n is CarrierANumber => n !== undefined);
      next = body.next;
    }
    if (total !== undefined && listed < total) {
      throw new CarrierError(
        PROVIDER,
        'invalid_response',
        `${PROVIDER} listed ${listed} of the ${total} numbers it counts: the account changed while it was read`,
      );
    }
  }

  /** The account's number with this E.164 value, or undefined when the account has no such number. */
  async findNumber(phoneNumber: string, signal?: AbortSignal): Promise<CarrierANumber | undefined> {
    let body: unknown;
    try {
      body = await this.#send({
        method: 'GET',
        url: this.#url(`/Number/${encodeURIComponent(digits(phoneNumber))}/`),
        signal,
      });
    } catch (error) {
      if (error instanceof CarrierError && error.code === 'not_found') return undefined;
      throw error;
    }
    const found = this.#number(body);
    return found?.phoneNumber === phoneNumber ? found : undefined;
  }

  /** Points the number's calls at the application `appId` (it then answers through that application). */
  async pointAt(number: NumberAtCarrier, appId: string, signal?: AbortSignal): Promise<void> {
    const id = number.providerNumberId ?? digits(number.phoneNumber);
    await this.#send({
      method: 'POST',
      url: this.#url(`/Number/${encodeURIComponent(id)}/`),
      json: { app_id: appId },
      signal,
    });
  }

  /**
   * On assignment to an agent: makes sure Parley's application answers at `voiceUrl`, and points the number at it
   * (moving it off whatever application answered before). Idempotent.
   */
  async routeInbound(number: NumberAtCarrier, voiceUrl: string, signal?: AbortSignal): Promise<void> {
    const { appId } = await this.ensureApplication(applicationUrls(voiceUrl), signal);
    await this.pointAt(number, appId, signal);
  }

  async #application(appId: string, signal?: AbortSignal): Promise<ApplicationResource | undefined> {
    try {
      const body = await this.#send({
        method: 'GET',
        url: this.#url(`/Application/${encodeURIComponent(appId)}/`),
        signal,
      });
      return applicationResource(body);
    } catch (error) {
      if (error instanceof CarrierError && error.code === 'not_found') return undefined;
      throw error;
    }
  }

  /** The main account's application of that name, searching every page of applications. */
  async #applicationNamed(name: string, signal?: AbortSignal): Promise<ApplicationResource | undefined> {
    const listPath = `${this.#accountPath}/Application/`;
    let next: string | null = `${listPath}?limit=${LIST_PAGE_SIZE}&offset=0`;
    const seenLinks = new Set<string>();
    for (let page = 0; next !== null; page += 1) {
      if (page >= MAX_PAGES)
        throw new CarrierError(
          PROVIDER,
          'invalid_response',
          `${PROVIDER} listed more than ${MAX_PAGES} pages of applications`,
        );
      const body = await this.#page(listPath, next, seenLinks, signal);
      const found = body.objects.map(applicationResource).find((app) => app.app_name === name && !app.sub_account);
      if (found) return found;
      next = body.next;
    }
    return undefined;
  }

  /** One page of a list: its objects, the next page's path (checked to stay on the same list), its total. */
  async #page(
    listPath: string,
    link: string,
    seenLinks: Set<string>,
    signal?: AbortSignal,
  ): Promise<{ objects: unknown[]; next: string | null; totalCount?: number }> {
    // meta.next is a path on the API host; anything else would send the credentials elsewhere.
    if (!link.startsWith(`${listPath}?`) || seenLinks.has(link)) {
      throw new CarrierError(PROVIDER, 'invalid_response', `${PROVIDER} gave an unusable meta.next`);
    }
    seenLinks.add(link);
    const body = (await this.#send({ method: 'GET', url: `${this.#options.baseUrl}${link}`, signal })) as {
      objects?: unknown;
      meta?: unknown;
    };
    if (!Array.isArray(body.objects))
      throw new CarrierError(PROVIDER, 'invalid_response', `${PROVIDER} answered a list without objects`);
    const meta = (body.meta ?? {}) as { next?: unknown; total_count?: unknown };
    const next = typeof meta.next === 'string' && meta.next !== '' ? meta.next : null;
    const totalCount =
      typeof meta.total_count === 'number' && Number.isInteger(meta.total_count) ? meta.total_count : undefined;
    return { objects: body.objects, next, totalCount };
  }

  #url(path: string): string {
    return `${this.#options.baseUrl}${this.#accountPath}${path}`;
  }

  /** One request; a non-2xx answer becomes a CarrierError carrying the carrier's own message. */
  #send(request: Omit<CarrierRequest, 'headers' | 'timeoutMs'>): Promise<unknown> {
    return carrierARequest(request, this.#options);
  }

  #number(item: unknown): CarrierANumber | undefined {
    const n = item as Partial<NumberResource> | null;
    if (!n || (typeof n.number !== 'string' && typeof n.number !== 'number')) {
      throw new CarrierError(PROVIDER, 'invalid_response', `${PROVIDER} listed a number without its number`);
    }
    const raw = String(n.number);
    const phoneNumber = raw.startsWith('+') ? raw : `+${raw}`;
    // Short codes and other entries that are not E.164 are not phone numbers Parley can route.
    if (!isE164(phoneNumber)) return undefined;
    const flags = { voice: n.voice_enabled === true, sms: n.sms_enabled === true, mms: n.mms_enabled === true };
    const appId = applicationId(n.application);
    return {
      providerNumberId: raw.replace(/^\+/, ''),
      phoneNumber,
      friendlyName: text(n.alias),
      countryCode: null,
      capabilities: { voice: flags.voice, sms: flags.sms },
      type: text(n.number_type),
      region: text(n.region),
      carrierCapabilities: flags,
      // Until Parley's application is known, a number on none reads as unset and one on a trunk as elsewhere.
      inbound: appId === null ? (text(n.object_type) ? 'elsewhere' : 'unset') : 'elsewhere',
      appId,
      subaccount: text(n.sub_account) ?? text(n.subaccount),
    };
  }
}

/**
 * How a number of the account routes its calls, once Parley's application `parleyAppId` is known: through it
 * (parley), through another application or a trunk (elsewhere), or nowhere yet (unset).
 */
export function inboundVia(number: Pick<CarrierANumber, 'appId' | 'inbound'>, parleyAppId: string): InboundRouting {
  if (number.appId === null) return number.inbound;
  return number.appId === parleyAppId ? 'parley' : 'elsewhere';
}

/** Parley's application URLs for a voice webhook: the hangup webhook sits beside it (`…/webhooks/carrier-a/hangup`). */
export function applicationUrls(voiceUrl: string): ApplicationUrls {
  return { answerUrl: voiceUrl, hangupUrl: new URL('hangup', voiceUrl).toString() };
}

/** The app id in an application path (`/v1/Account/MA…/Application/123/`), or the bare id some answers give. */
function applicationId(value: unknown): string | null {
  const path = text(value);
  if (!path) return null;
  const match = /\/Application\/([^/]+)\/?$/.exec(path);
  return match ? decodeURIComponent(match[1]!) : path;
}

function applicationResource(item: unknown): ApplicationResource {
  const app = item as Partial<ApplicationResource> | null;
  const id = app?.app_id as unknown;
  if (!app || (typeof id !== 'string' && typeof id !== 'number')) {
    throw new CarrierError(PROVIDER, 'invalid_response', `${PROVIDER} listed an application without app_id`);
  }
  return { ...app, app_id: String(id) };
}

/** The carrier's words in an error body: `error` as a sentence, or its field messages joined. */
/** The carrier writes numbers as digits without the `+`. */
function digits(phoneNumber: string): string {
  return phoneNumber.replace(/^\+/, '');
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
