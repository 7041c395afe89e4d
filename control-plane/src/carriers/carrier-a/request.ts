/**
 * One authenticated request to carrier-a's REST API (basic auth with auth_id:auth_token), shared by the customer
 * account client (api.ts) and the number inventory (inventory.ts): a non-2xx answer becomes a
 * CarrierError carrying the carrier's own message, refused credentials become `credentials`.
 */
import { basicAuth, carrierFetch, type CarrierRequest } from '../carrier-http.ts';
import { CarrierError, errorCodeForStatus } from '../../telephony/carrier.ts';

const PROVIDER = 'carrier-a';

export interface CarrierACredentials {
  /** `MA…` for a main account, `SA…` for a subaccount: 20 upper-case letters and digits. */
  authId: string;
  authToken: string;
}

export interface CarrierARequestOptions {
  credentials: CarrierACredentials;
  timeoutMs?: number;
  /** A 2xx without a body is an answer (DELETE answers 204); otherwise it is an invalid response. */
  emptyOk?: boolean;
}

/** Sends `request`; the JSON object of a 2xx answer, or undefined for an empty one when `emptyOk`. */
export async function carrierARequest(
  request: Omit<CarrierRequest, 'headers' | 'timeoutMs'>,
  options: CarrierARequestOptions,
): Promise<unknown> {
  const { authId, authToken } = options.credentials;
  let response;
  try {
    response = await carrierFetch(PROVIDER, {
      ...request,
      headers: { authorization: basicAuth(authId, authToken) },
      timeoutMs: options.timeoutMs,
    });
  } catch (error) {
    // The carrier refuses credentials with a body that is not always JSON: the status says enough.
    if (error instanceof CarrierError && (error.status === 401 || error.status === 403)) {
      throw new CarrierError(PROVIDER, 'credentials', 'authentication failed', { status: error.status, cause: error });
    }
    throw error;
  }
  if (response.status >= 200 && response.status < 300) {
    if (response.body === undefined && options.emptyOk) return undefined;
    if (typeof response.body !== 'object' || response.body === null) {
      throw new CarrierError(
        PROVIDER,
        'invalid_response',
        `${PROVIDER} answered HTTP ${response.status} without a JSON object`,
      );
    }
    return response.body;
  }
  const message = errorMessage(response.body) ?? `HTTP ${response.status}`;
  throw new CarrierError(PROVIDER, errorCodeForStatus(response.status), message, { status: response.status });
}

function errorMessage(body: unknown): string | undefined {
  if (typeof body === 'string' && body.trim()) return body.trim();
  const error = (body as { error?: unknown } | undefined)?.error;
  if (typeof error === 'string' && error) return error;
  if (error && typeof error === 'object') {
    const parts = Object.entries(error as Record<string, unknown>).map(
      ([field, problem]) => `${field}: ${[problem].flat().join(', ')}`,
    );
    if (parts.length) return parts.join('; ');
  }
  const message = (body as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' && message ? message : undefined;
}
