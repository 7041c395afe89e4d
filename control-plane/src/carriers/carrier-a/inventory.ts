/**
 * carrier-a's number inventory (Plivo-style API): searching the numbers it offers, renting one onto an account and
 * giving it back — for a customer's own connected account (POST /telephony/carrier-a/search and …/purchase) and for
 * the service's own account (managed numbers, docs/architecture.md §10):
 * - GET    /v1/Account/{auth_id}/PhoneNumber/?country_iso&type&pattern&limit   numbers the carrier offers to rent
 * - POST   /v1/Account/{auth_id}/PhoneNumber/{number}/                         rent one (app_id: who answers it)
 * - DELETE /v1/Account/{auth_id}/Number/{number}/                              give it back (204)
 * A rent answers `{ status, numbers: [{ number, status }] }`: the number is the account's only when its own status
 * is `Success` (a number needing the regulator's paperwork answers `pending` and is not usable yet).
 */
import { CarrierError } from '../../telephony/carrier.ts';
import { isE164 } from '../../http/e164.ts';
import { carrierARequest, type CarrierACredentials } from './request.ts';

const PROVIDER = 'carrier-a';
/** The carrier's largest page of rentable numbers. */
export const RENTABLE_PAGE_SIZE = 20;

/** The carrier's number types (its `type` search parameter). */
export const CARRIER_A_NUMBER_TYPES = ['local', 'mobile', 'tollfree', 'national', 'fixed'] as const;
export type CarrierANumberType = (typeof CARRIER_A_NUMBER_TYPES)[number];

export interface RentableQuery {
  /** ISO 3166-1 alpha-2. */
  countryIso: string;
  /** Default local. */
  type?: CarrierANumberType;
  /** Digits the number should start with after the country code (an area code), when wanted. */
  pattern?: string;
  /** The carrier's region (a state or province name) and city filters. */
  region?: string;
  city?: string;
  limit?: number;
}

/** A number the carrier offers to rent, as Parley shows it. */
export interface RentableNumber {
  phoneNumber: string;
  region: string | null;
  type: string | null;
  voice: boolean;
  sms: boolean;
}

interface PhoneNumberResource {
  number?: unknown;
  region?: unknown;
  city?: unknown;
  type?: unknown;
  voice_enabled?: unknown;
  sms_enabled?: unknown;
}

export class CarrierAInventory {
  readonly #baseUrl: string;
  readonly #credentials: CarrierACredentials;
  readonly #timeoutMs: number | undefined;

  constructor(options: { baseUrl: string; credentials: CarrierACredentials; timeoutMs?: number }) {
    this.#baseUrl = options.baseUrl;
    this.#credentials = options.credentials;
    this.#timeoutMs = options.timeoutMs;
  }

  /** Voice numbers the carrier offers in the country (first page only: a customer picks among a few). */
  async search(query: RentableQuery, signal?: AbortSignal): Promise<RentableNumber[]> {
    const params = new URLSearchParams({
      country_iso: query.countryIso,
      type: query.type ?? 'local',
      services: 'voice',
      limit: String(Math.min(query.limit ?? RENTABLE_PAGE_SIZE, RENTABLE_PAGE_SIZE)),
    });
    if (query.pattern) params.set('pattern', query.pattern);
    if (query.region) params.set('region', query.region);
    if (query.city) params.set('city', query.city);
    const body = (await this.#send({ method: 'GET', url: this.#url(`/PhoneNumber/?${params}`), signal })) as {
      objects?: unknown;
    };
    if (!Array.isArray(body.objects))
      throw new CarrierError(PROVIDER, 'invalid_response', `${PROVIDER} answered a number search without objects`);
    return body.objects.map(rentable).filter((n): n is RentableNumber => n !== undefined);
  }

  /** Rents the number onto the account, its calls answered by the application `appId`. */
  async rent(phoneNumber: string, appId: string, signal?: AbortSignal): Promise<void> {
    const body = (await this.#send({
      method: 'POST',
      url: this.#url(`/PhoneNumber/${encodeURIComponent(digits(phoneNumber))}/`),
      json: { app_id: appId },
      signal,
    })) as { numbers?: unknown };
    const numbers = Array.isArray(body.numbers) ? (body.numbers as { number?: unknown; status?: unknown }[]) : [];
    const mine = numbers.find((n) => String(n.number ?? '') === digits(phoneNumber));
    if (mine?.status !== 'Success') {
      throw new CarrierError(
        PROVIDER,
        'rejected',
        `${PROVIDER} did not rent ${phoneNumber} (${typeof mine?.status === 'string' ? mine.status : 'no status'})`,
      );
    }
  }

  /** Gives the number back. A number the account no longer has counts as given back. */
  async release(phoneNumber: string, signal?: AbortSignal): Promise<void> {
    try {
      await this.#send({
        method: 'DELETE',
        url: this.#url(`/Number/${encodeURIComponent(digits(phoneNumber))}/`),
        signal,
      });
    } catch (error) {
      if (error instanceof CarrierError && error.code === 'not_found') return;
      throw error;
    }
  }

  #url(path: string): string {
    return `${this.#baseUrl}/v1/Account/${encodeURIComponent(this.#credentials.authId)}${path}`;
  }

  #send(request: Parameters<typeof carrierARequest>[0]): Promise<unknown> {
    return carrierARequest(request, { credentials: this.#credentials, timeoutMs: this.#timeoutMs, emptyOk: true });
  }
}

function rentable(item: unknown): RentableNumber | undefined {
  const n = item as PhoneNumberResource | null;
  if (!n || (typeof n.number !== 'string' && typeof n.number !== 'number')) return undefined;
  const phoneNumber = `+${String(n.number).replace(/^\+/, '')}`;
  if (!isE164(phoneNumber)) return undefined;
  const region = [n.city, n.region].filter((part): part is string => typeof part === 'string' && part !== '');
  return {
    phoneNumber,
    region: region.length ? region.join(', ') : null,
    type: typeof n.type === 'string' ? n.type : null,
    voice: n.voice_enabled === true,
    sms: n.sms_enabled === true,
  };
}

function digits(phoneNumber: string): string {
  return phoneNumber.replace(/^\+/, '');
}
