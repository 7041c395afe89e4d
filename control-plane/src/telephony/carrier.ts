/**
 * What every carrier adapter shares: the carrier identifiers of the spec, the default REST API of each, a phone
 * number as a carrier lists it (in Parley's terms), and the one error an adapter throws. Each adapter
 * (`carrier-b.ts`, …) speaks its own carrier's REST API at a configurable base URL and translates to these types;
 * nothing in this file knows any carrier's wire format.
 */

/** Neutral carrier identifiers (spec document 1, Carriers): `provider` on integrations and numbers. */
export const CARRIERS = ['carrier-a', 'carrier-b', 'carrier-c', 'carrier-d', 'carrier-e'] as const;
export type Carrier = (typeof CARRIERS)[number];

/**
 * Each carrier's real REST API: the default of PARLEY_CARRIER_<A…E>_API_URL. undefined where there is no public
 * API to default to (the India numbering partner's reseller API, carrier-e): the variable must be set.
 */
export const CARRIER_API_DEFAULTS: Readonly<Record<Carrier, string | undefined>> = {
  'carrier-a': 'https://api.plivo.com',
  'carrier-b': 'https://api.twilio.com',
  'carrier-c': 'https://api.exotel.com',
  'carrier-d': undefined,
  'carrier-e': undefined,
};

/** The environment variable naming a carrier's API base URL: carrier-b → PARLEY_CARRIER_B_API_URL. */
export function carrierApiUrlVariable(carrier: Carrier): string {
  return `PARLEY_CARRIER_${carrier.slice('carrier-'.length).toUpperCase()}_API_URL`;
}

/** Where a number's inbound calls go now, as the carrier reports it. */
export type InboundRouting =
  /** To Parley's inbound voice webhook for this carrier. */
  | 'parley'
  /** To another application or URL: Parley leaves it alone until it is assigned (routingStatus NEEDS_SETUP). */
  | 'elsewhere'
  /** Nowhere yet. */
  | 'unset';

/** A phone number on a carrier account, in Parley's terms (spec document 1, Phone number). */
export interface RemoteNumber {
  /** The carrier's own id of the number (carrier-b: the PN… sid). */
  providerNumberId: string;
  /** E.164. */
  phoneNumber: string;
  friendlyName: string | null;
  /** ISO 3166-1 alpha-2, when the carrier says. */
  countryCode: string | null;
  capabilities: { voice: boolean; sms: boolean };
  /** `metadata.type` (local, mobile, tollfree…), when the carrier says. */
  type: string | null;
  /** `metadata.region`, when the carrier says. */
  region: string | null;
  /** `metadata.capabilities`: every capability flag as the carrier lists them. */
  carrierCapabilities: Record<string, boolean>;
  inbound: InboundRouting;
}

/**
 * Why a carrier call failed, in terms the API maps to its own codes (src/telephony/carrier-errors.ts):
 * - credentials: the carrier refused the credentials (HTTP 401/403 at the carrier);
 * - rejected: the carrier refused the request itself (4xx: number not available, bad parameter…);
 * - not_found: the resource asked for does not exist at the carrier;
 * - rate_limited: the carrier's own rate limit;
 * - unreachable: no answer, a timeout, or a 5xx;
 * - invalid_response: an answer that is not the carrier's documented shape.
 */
export type CarrierErrorCode =
  | 'credentials'
  | 'rejected'
  | 'not_found'
  | 'rate_limited'
  | 'unreachable'
  | 'invalid_response';

const RETRYABLE: Readonly<Record<CarrierErrorCode, boolean>> = {
  credentials: false,
  rejected: false,
  not_found: false,
  rate_limited: true,
  unreachable: true,
  invalid_response: true,
};

/** The one error a carrier adapter throws. Its message is the carrier's own words where it gave any. */
export class CarrierError extends Error {
  override name = 'CarrierError';
  readonly provider: Carrier;
  readonly code: CarrierErrorCode;
  readonly retryable: boolean;
  /** The carrier's HTTP status, when it answered. */
  readonly status: number | undefined;
  /** The carrier's own error code (carrier-b: 20003, 21422…), when it gave one. */
  readonly carrierCode: string | undefined;

  constructor(
    provider: Carrier,
    code: CarrierErrorCode,
    message: string,
    options: { status?: number; carrierCode?: string | number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.provider = provider;
    this.code = code;
    this.retryable = RETRYABLE[code];
    this.status = options.status;
    this.carrierCode = options.carrierCode === undefined ? undefined : String(options.carrierCode);
  }
}

/** How a carrier's HTTP status reads when its body says nothing more precise. */
export function errorCodeForStatus(status: number): CarrierErrorCode {
  if (status === 401 || status === 403) return 'credentials';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'unreachable';
  return 'rejected';
}

/** A number as the shared telephony code names it to a carrier. */
export interface NumberAtCarrier {
  /** The carrier's id, when Parley knows it; otherwise the adapter finds the number by phoneNumber. */
  providerNumberId: string | null;
  phoneNumber: string;
}

/** What Parley's shared telephony code (routing) asks of any connected carrier account. */
export interface CarrierAccount {
  /**
   * Points the number's inbound voice calls at `voiceUrl`, Parley's webhook for this carrier: on assignment to an
   * agent. Idempotent: the URL is the same for every number of a carrier, so pointing it twice does no harm.
   */
  routeInbound(number: NumberAtCarrier, voiceUrl: string, signal?: AbortSignal): Promise<void>;
}
