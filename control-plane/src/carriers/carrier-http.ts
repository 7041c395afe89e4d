/**
 * One HTTP exchange with a carrier's REST API: a timeout on every request, the caller's AbortSignal honoured, the
 * body read as JSON, and transport failures turned into CarrierError. Each adapter reads its carrier's error shape
 * from the answer itself; this file only moves bytes.
 */
import { CarrierError, type Carrier } from '../telephony/carrier.ts';

/**
 * Longest wait for one carrier request. Carrier APIs answer in well under a second; 15 s leaves room for a page
 * of 1,000 numbers on a slow day and still answers our own client before common proxy timeouts (30–60 s).
 */
export const CARRIER_REQUEST_TIMEOUT_MS = 15_000;

export interface CarrierRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  /** Sent as application/x-www-form-urlencoded; a list is sent as the parameter repeated (`A=1&A=2`), as carriers read lists. */
  form?: Record<string, string | readonly string[]>;
  /** Sent as application/json. */
  json?: unknown;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface CarrierResponse {
  status: number;
  /** The parsed JSON body; undefined when the body was empty. */
  body: unknown;
}

/** `Authorization` value of HTTP basic authentication. */
export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}

/**
 * Sends one request and reads its JSON answer, whatever the status: the adapter decides what a status means.
 * Throws CarrierError `unreachable` when no answer came (refused, reset, timed out) and `invalid_response` when the
 * body is not JSON.
 */
export async function carrierFetch(provider: Carrier, request: CarrierRequest): Promise<CarrierResponse> {
  const timeout = AbortSignal.timeout(request.timeoutMs ?? CARRIER_REQUEST_TIMEOUT_MS);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  let body: string | undefined;
  if (request.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(request.form)) {
      for (const item of typeof value === 'string' ? [value] : value) params.append(name, item);
    }
    body = params.toString();
  } else if (request.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.json);
  }
  let response: Response;
  let text: string;
  try {
    response = await fetch(request.url, { method: request.method, headers, body, signal, redirect: 'error' });
    text = await response.text();
  } catch (error) {
    const reason = timeout.aborted ? 'did not answer in time' : 'could not be reached';
    throw new CarrierError(provider, 'unreachable', `${provider} ${reason}`, { cause: error });
  }
  if (text.trim() === '') return { status: response.status, body: undefined };
  try {
    return { status: response.status, body: JSON.parse(text) as unknown };
  } catch (error) {
    // A 5xx from a proxy in front of the carrier is often HTML: that is the carrier failing, not lying.
    const code = response.status >= 500 ? 'unreachable' : 'invalid_response';
    throw new CarrierError(provider, code, `${provider} answered HTTP ${response.status} without a JSON body`, {
      status: response.status,
      cause: error,
    });
  }
}
