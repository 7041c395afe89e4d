/**
 * carrier-d, the India numbering partner: its reseller REST API at PARLEY_CARRIER_D_API_URL (no public default).
 * The partner publishes no documentation, so this is Parley's contract with it, written in the style of Indian DID
 * resellers; test/fakes/carriers/carrier-d-fake.ts speaks exactly this.
 *
 * Authentication: the service's reseller account (PARLEY_CARRIER_D_USERNAME / PARLEY_CARRIER_D_PASSWORD).
 * - POST /api/v1/auth/login            {username, password} → 200 {success, data: {token, token_type: "Bearer",
 *                                      expires_in (seconds)}}; 401 invalid_credentials.
 * Every other request carries `Authorization: Bearer <token>`; an expired or unknown token is 401 token_expired
 * (log in again). JSON both ways. Answers are `{success: true, data}`; errors `{success: false, error: {code,
 * message}}` with 400 validation_failed, 401 invalid_credentials|token_expired, 402 insufficient_balance (the
 * reseller float does not cover the charge), 404 not_found, 409 invalid_state|did_unavailable|kyc_not_approved,
 * 429 rate_limited, 5xx.
 *
 * KYC application (one per end customer, named by the reseller's `customer_ref`), one endpoint per wizard step:
 * - POST /api/v1/kyc/register                  {customer_ref, application_id?, account_type (individual|business),
 *                                              full_name, email, phone, billing_address, term_and_condition: true,
 *                                              business_name (business)} → 201 application (200 when application_id
 *                                              names one to restart: it goes back to step register)
 * - POST /api/v1/kyc/{application_id}/pan      {pan_holder_name, pan_number} → 200 application
 * - POST /api/v1/kyc/{application_id}/aadhaar  {redirect_url?} → 200 application + aadhaar_verification_url (the
 *                                              customer opens it in a browser; aadhaar_verified turns true after)
 * - POST /api/v1/kyc/{application_id}/gst      {gst_number} (business only) → 200 application
 * - POST /api/v1/kyc/{application_id}/final    {} → 200 application, status under_review
 * - GET  /api/v1/kyc/{application_id}          → 200 application (the live status)
 * Steps out of order (pan before register is impossible: pan needs an application; aadhaar before pan, gst or
 * final before the aadhaar link was completed, gst for an individual, any step once under review or approved) are
 * 409 invalid_state. Application: {application_id, customer_ref, account_type, status (in_progress | under_review |
 * approved | rejected), step (last step accepted), aadhaar_verified, rejection_reason, submitted_at, decided_at,
 * updated_at}.
 *
 * DIDs:
 * - GET  /api/v1/dids/available?country_code&type&number&months&page&per_page → 200 {dids: [{id (integer),
 *        did_number, country_code, type (integer: 1 local, 2 mobile, 3 toll-free), months, city, state,
 *        rate_per_month, currency}], pagination: {page, per_page, total, total_pages}}; per_page at most 100.
 * - POST /api/v1/dids/purchase   {did_id, did_number, months, application_id, voice_url} → 201 {order_id, bot_id,
 *        did: {id, did_number, country_code, type, city, state, rate_per_month, currency, expires_at}}. The bot is
 *        the partner's routing target of the number: it sends the number's calls to voice_url. Charged to the
 *        reseller float (402 insufficient_balance); 409 kyc_not_approved, did_unavailable.
 * - GET  /api/v1/dids/purchased?did_number → 200 {dids: [{id, did_number, bot_id, expires_at}]}
 * - PUT  /api/v1/bots/{bot_id}   {voice_url} → 200 {bot_id, voice_url}
 * - POST /api/v1/dids/{did_id}/renew {months} → 200 {purchase_id, renewed_at, expires_at}; charged to the float.
 */
import { carrierFetch, type CarrierRequest } from '../carrier-http.ts';
import {
  CarrierError,
  errorCodeForStatus,
  type CarrierAccount,
  type CarrierErrorCode,
  type NumberAtCarrier,
  type RemoteNumber,
} from '../../telephony/carrier.ts';
import { isE164 } from '../../http/e164.ts';

const PROVIDER = 'carrier-d';
const API = '/api/v1';
/** A token is used until this long before the partner says it expires: a request in flight must not outlive it. */
const TOKEN_MARGIN_MS = 60_000;
/** Token lifetime assumed when the partner names none: short, so a wrong guess costs one extra login. */
const DEFAULT_TOKEN_TTL_S = 300;
/** India's dial code: the partner's numbers are Indian. */
const INDIA_DIAL_CODE = '91';

export const KYC_STEPS = ['register', 'pan', 'aadhaar', 'gst', 'final'] as const;
export type KycStep = (typeof KYC_STEPS)[number];

export interface ResellerCredentials {
  username: string;
  password: string;
}

/** Bearer tokens of reseller logins, shared by the clients of one server (keyed by API and username). */
export class CarrierDTokenCache {
  readonly #tokens = new Map<string, { token: string; expiresAt: number }>();

  get(key: string): string | undefined {
    const entry = this.#tokens.get(key);
    if (!entry || entry.expiresAt <= Date.now()) return undefined;
    return entry.token;
  }

  set(key: string, token: string, ttlSeconds: number): void {
    this.#tokens.set(key, { token, expiresAt: Date.now() + Math.max(ttlSeconds * 1000 - TOKEN_MARGIN_MS, 0) });
  }

  drop(key: string, token: string): void {
    if (this.#tokens.get(key)?.token === token) this.#tokens.delete(key);
  }
}

export interface CarrierDOptions {
  /** API base URL (PARLEY_CARRIER_D_API_URL), without a trailing slash. */
  baseUrl: string;
  credentials: ResellerCredentials;
  tokens: CarrierDTokenCache;
  timeoutMs?: number;
}

/** A KYC application as the partner reports it. */
export interface PartnerApplication {
  applicationId: string;
  accountType: 'individual' | 'business' | null;
  /** The partner's own status word (in_progress, under_review, approved, rejected, or one Parley does not know). */
  status: string;
  /** The last step the partner accepted. */
  step: KycStep | null;
  aadhaarVerified: boolean;
  rejectionReason: string | null;
  submittedAt: Date | null;
  decidedAt: Date | null;
  /** The aadhaar step only: the page the customer opens in a browser. */
  aadhaarVerificationUrl: string | null;
}

/** A number for sale, as the spec's GET /telephony/carrier-d/dids returns it (the partner's own fields). */
export interface AvailableDid {
  id: number;
  did_number: string;
  country_code: string;
  type: number | null;
  months: number | null;
  city: string | null;
  state: string | null;
  rate_per_month: number | null;
  currency: string | null;
}

export interface DidSearch {
  countryCode?: string;
  type?: number;
  number?: string;
  months?: number;
  page?: number;
  perPage?: number;
}

export interface DidPage {
  dids: AvailableDid[];
  page: number;
  perPage: number;
  total: number;
}

export interface DidPurchase {
  didId: number;
  didNumber: string;
  months: number;
  applicationId: string;
  voiceUrl: string;
}

export interface PurchasedDid {
  /** null when the partner gave none (the caller decides what that means). */
  orderId: string | null;
  botId: string | null;
  number: RemoteNumber | null;
  expiresAt: Date | null;
}

export interface DidRenewal {
  purchaseId: string;
  renewedAt: Date;
  expiresAt: Date | null;
}

/** metadata.type of a number by the partner's integer type. */
const DID_TYPES: Readonly<Record<number, string>> = { 1: 'local', 2: 'mobile', 3: 'tollfree' };

export class CarrierDClient implements CarrierAccount {
  readonly #options: CarrierDOptions;
  readonly #tokenKey: string;

  constructor(options: CarrierDOptions) {
    this.#options = options;
    this.#tokenKey = `${options.baseUrl}\n${options.credentials.username}`;
  }

  /** The register step: creates the customer's application, or restarts the one named. */
  async register(
    customerRef: string,
    applicationId: string | null,
    payload: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<PartnerApplication> {
    const json = { ...payload, customer_ref: customerRef, ...(applicationId ? { application_id: applicationId } : {}) };
    return application(await this.#send({ method: 'POST', path: '/kyc/register', json, signal }));
  }

  /** A step after register (pan, aadhaar, gst, final) of the application. */
  async submitStep(
    applicationId: string,
    step: Exclude<KycStep, 'register'>,
    payload: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<PartnerApplication> {
    const body = await this.#send({
      method: 'POST',
      path: `/kyc/${encodeURIComponent(applicationId)}/${step}`,
      json: payload,
      signal,
    });
    const read = application(body);
    if (step === 'aadhaar' && !read.aadhaarVerificationUrl) {
      throw new CarrierError(
        PROVIDER,
        'invalid_response',
        `${PROVIDER} answered the aadhaar step without aadhaar_verification_url`,
      );
    }
    return read;
  }

  /** The application's status now, at the partner. */
  async kycStatus(applicationId: string, signal?: AbortSignal): Promise<PartnerApplication> {
    return application(await this.#send({ method: 'GET', path: `/kyc/${encodeURIComponent(applicationId)}`, signal }));
  }

  /** One page of numbers for sale. */
  async availableDids(search: DidSearch, signal?: AbortSignal): Promise<DidPage> {
    const query = new URLSearchParams();
    const put = (name: string, value: string | number | undefined) => {
      if (value !== undefined) query.set(name, String(value));
    };
    put('country_code', search.countryCode);
    put('type', search.type);
    put('number', search.number);
    put('months', search.months);
    put('page', search.page);
    put('per_page', search.perPage);
    const body = await this.#send({ method: 'GET', path: `/dids/available?${query}`, signal });
    const list = body.dids;
    if (!Array.isArray(list)) throw invalid('listed numbers without dids');
    const paging = (body.pagination ?? {}) as Record<string, unknown>;
    return {
      dids: list.map(availableDid),
      page: integer(paging.page) ?? search.page ?? 1,
      perPage: integer(paging.per_page) ?? search.perPage ?? list.length,
      total: integer(paging.total) ?? list.length,
    };
  }

  /** Buys a number, charged to the reseller float, with its bot sending calls to `voiceUrl`. */
  async purchase(input: DidPurchase, signal?: AbortSignal): Promise<PurchasedDid> {
    const body = await this.#send({
      method: 'POST',
      path: '/dids/purchase',
      json: {
        did_id: input.didId,
        did_number: input.didNumber,
        months: input.months,
        application_id: input.applicationId,
        voice_url: input.voiceUrl,
      },
      signal,
    });
    const did = (body.did ?? {}) as Record<string, unknown>;
    const phoneNumber = e164(text(did.did_number) ?? input.didNumber);
    const type = integer(did.type);
    return {
      orderId: idText(body.order_id),
      botId: idText(body.bot_id),
      expiresAt: date(did.expires_at),
      number:
        phoneNumber === null
          ? null
          : {
              providerNumberId: String(integer(did.id) ?? input.didId),
              phoneNumber,
              friendlyName: [text(did.city), text(did.state)].filter(Boolean).join(', ') || null,
              countryCode: 'IN',
              capabilities: { voice: true, sms: false },
              type: type === null ? null : (DID_TYPES[type] ?? String(type)),
              region: text(did.state),
              carrierCapabilities: { voice: true },
              inbound: 'parley',
            },
    };
  }

  /** Renews a bought number for `months`, charged to the reseller float. */
  async renew(didId: string, months: number, signal?: AbortSignal): Promise<DidRenewal> {
    const body = await this.#send({
      method: 'POST',
      path: `/dids/${encodeURIComponent(didId)}/renew`,
      json: { months },
      signal,
    });
    const purchaseId = idText(body.purchase_id);
    const renewedAt = date(body.renewed_at);
    if (!purchaseId || !renewedAt) throw invalid('answered a renewal without purchase_id or renewed_at');
    return { purchaseId, renewedAt, expiresAt: date(body.expires_at) };
  }

  /**
   * Points the number's bot at `voiceUrl`. The bot is found by the number among the reseller's purchased DIDs;
   * setting the same URL again changes nothing, so this is idempotent.
   */
  async routeInbound(number: NumberAtCarrier, voiceUrl: string, signal?: AbortSignal): Promise<void> {
    const query = new URLSearchParams({ did_number: number.phoneNumber.replace(/^\+/, '') });
    const body = await this.#send({ method: 'GET', path: `/dids/purchased?${query}`, signal });
    const list = Array.isArray(body.dids) ? (body.dids as Record<string, unknown>[]) : [];
    const match = list.find((d) => e164(text(d.did_number) ?? '') === number.phoneNumber);
    const botId = match ? idText(match.bot_id) : null;
    if (!botId)
      throw new CarrierError(
        PROVIDER,
        'not_found',
        `${PROVIDER} has no number ${number.phoneNumber} on the reseller account`,
      );
    await this.#send({
      method: 'PUT',
      path: `/bots/${encodeURIComponent(botId)}`,
      json: { voice_url: voiceUrl },
      signal,
    });
  }

  async #token(signal?: AbortSignal): Promise<string> {
    const cached = this.#options.tokens.get(this.#tokenKey);
    if (cached) return cached;
    const { username, password } = this.#options.credentials;
    const response = await carrierFetch(PROVIDER, {
      method: 'POST',
      url: `${this.#options.baseUrl}${API}/auth/login`,
      json: { username, password },
      signal,
      timeoutMs: this.#options.timeoutMs,
    });
    const data = unwrap(response.status, response.body);
    const token = text(data.token);
    if (!token) throw invalid('answered a login without a token');
    this.#options.tokens.set(this.#tokenKey, token, integer(data.expires_in) ?? DEFAULT_TOKEN_TTL_S);
    return token;
  }

  /** One request with the reseller's token; a refused token is replaced once by a fresh login. */
  async #send(request: {
    method: CarrierRequest['method'];
    path: string;
    json?: unknown;
    signal?: AbortSignal;
  }): Promise<Record<string, unknown>> {
    for (let attempt = 0; ; attempt += 1) {
      const token = await this.#token(request.signal);
      const response = await carrierFetch(PROVIDER, {
        method: request.method,
        url: `${this.#options.baseUrl}${API}${request.path}`,
        headers: { authorization: `Bearer ${token}` },
        json: request.json,
        signal: request.signal,
        timeoutMs: this.#options.timeoutMs,
      });
      if (response.status === 401 && attempt === 0) {
        this.#options.tokens.drop(this.#tokenKey, token);
        continue;
      }
      return unwrap(response.status, response.body);
    }
  }
}

/** The `data` of a 2xx answer; anything else becomes the CarrierError its status and error code say. */
function unwrap(status: number, body: unknown): Record<string, unknown> {
  const envelope = (typeof body === 'object' && body !== null ? body : {}) as {
    success?: unknown;
    data?: unknown;
    error?: unknown;
  };
  if (status >= 200 && status < 300) {
    if (typeof envelope.data !== 'object' || envelope.data === null || Array.isArray(envelope.data)) {
      throw invalid(`answered HTTP ${status} without a data object`);
    }
    return envelope.data as Record<string, unknown>;
  }
  const error = (typeof envelope.error === 'object' && envelope.error !== null ? envelope.error : {}) as {
    code?: unknown;
    message?: unknown;
  };
  const carrierCode = text(error.code) ?? undefined;
  const message = text(error.message) ?? `HTTP ${status}`;
  // 403 is the partner refusing an operation to the reseller, not its credentials: only 401 means those.
  const code: CarrierErrorCode =
    status === 401 ? 'credentials' : status === 403 ? 'rejected' : errorCodeForStatus(status);
  throw new CarrierError(PROVIDER, code, message, { status, carrierCode });
}

function application(data: Record<string, unknown>): PartnerApplication {
  const applicationId = idText(data.application_id);
  const status = text(data.status);
  if (!applicationId || !status) throw invalid('answered a KYC request without application_id or status');
  const step = text(data.step);
  const accountType = text(data.account_type);
  return {
    applicationId,
    accountType: accountType === 'individual' || accountType === 'business' ? accountType : null,
    status,
    step: (KYC_STEPS as readonly string[]).includes(step ?? '') ? (step as KycStep) : null,
    aadhaarVerified: data.aadhaar_verified === true,
    rejectionReason: text(data.rejection_reason),
    submittedAt: date(data.submitted_at),
    decidedAt: date(data.decided_at),
    aadhaarVerificationUrl: httpUrl(data.aadhaar_verification_url),
  };
}

function availableDid(item: unknown): AvailableDid {
  const d = (item ?? {}) as Record<string, unknown>;
  const id = integer(d.id);
  const didNumber = text(d.did_number);
  if (id === null || !didNumber) throw invalid('listed a number without an integer id or did_number');
  return {
    id,
    did_number: didNumber,
    country_code: text(d.country_code) ?? INDIA_DIAL_CODE,
    type: integer(d.type),
    months: integer(d.months),
    city: text(d.city),
    state: text(d.state),
    rate_per_month: decimal(d.rate_per_month),
    currency: text(d.currency),
  };
}

/** The partner writes numbers as 91XXXXXXXXXX, +91…, or a 10-digit national number: E.164, or null. */
export function e164(didNumber: string): string | null {
  const digits = didNumber.replace(/[\s-]/g, '').replace(/^\+/, '');
  if (!/^\d+$/.test(digits)) return null;
  const full = digits.length === 10 ? `${INDIA_DIAL_CODE}${digits}` : digits;
  const value = `+${full}`;
  return isE164(value) ? value : null;
}

function invalid(what: string): CarrierError {
  return new CarrierError(PROVIDER, 'invalid_response', `${PROVIDER} ${what}`);
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

/** An id the partner may write as a number or a string. */
function idText(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return text(value);
}

function integer(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) ? n : null;
}

/** A price the partner may write as a number or a decimal string ("499.00"). */
function decimal(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}

function date(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? null : at;
}

function httpUrl(value: unknown): string | null {
  const url = text(value);
  return url && /^https?:\/\//i.test(url) ? url : null;
}
