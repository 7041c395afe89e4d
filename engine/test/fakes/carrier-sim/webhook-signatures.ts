/**
 * How carriers sign the webhooks they send, so that a simulated carrier signs exactly as the real one does and the
 * control plane's checks are tested against the real scheme:
 *
 * - carrier-b (Twilio) `X-Twilio-Signature`: base64 HMAC-SHA1, keyed by the auth token, of the full URL it called
 *   (query included) followed by every POST parameter, sorted by name, as name + value with no separators.
 * - carrier-a (Plivo) `X-Plivo-Signature-V3` with `X-Plivo-Signature-V3-Nonce`: base64 HMAC-SHA256, keyed by the auth
 *   token, of the URL (query parameters sorted, `?` kept when POST parameters follow) followed by the POST
 *   parameters sorted by name as name + value, then `.` and the nonce — plivo-node's `validateV3Signature`.
 */
import { createHmac, randomInt } from 'node:crypto';

export type Params = Record<string, string | string[]>;

function entries(params: Params): [string, string][] {
  return Object.entries(params).flatMap(([key, value]) =>
    Array.isArray(value) ? value.map((v): [string, string] => [key, v]) : [[key, value] as [string, string]],
  );
}

/** carrier-b's X-Twilio-Signature of a request to `url` with POST `params` (none for GET). */
export function twilioSignature(authToken: string, url: string, params: Params = {}): string {
  const data =
    url +
    Object.keys(params)
      .sort()
      .map((key) => {
        const value = params[key]!;
        return Array.isArray(value)
          ? [...value]
              .sort()
              .map((v) => key + v)
              .join('')
          : key + value;
      })
      .join('');
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

/** carrier-a's V3 signature of a `method` request to `url` with POST `params`, for `nonce`. */
export function plivoV3Signature(
  authToken: string,
  method: 'GET' | 'POST',
  url: string,
  nonce: string,
  params: Params = {},
): string {
  const parsed = new URL(url);
  const base = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  const query = [...parsed.searchParams.entries()];
  let signed: string;
  if (method === 'GET') {
    const all = [...query, ...entries(params)].sort(([a, x], [b, y]) =>
      a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1,
    );
    signed = all.length ? `${base}?${all.map(([k, v]) => `${k}=${v}`).join('&')}` : base;
  } else {
    const sortedQuery = query
      .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1))
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    const hasParams = Object.keys(params).length > 0;
    signed = base;
    if (sortedQuery || hasParams) signed += `?${sortedQuery}`;
    if (sortedQuery && hasParams) signed += '.';
    signed += Object.keys(params)
      .sort()
      .map((key) => {
        const value = params[key]!;
        return Array.isArray(value)
          ? [...value]
              .sort()
              .map((v) => key + v)
              .join('')
          : key + value;
      })
      .join('');
  }
  return createHmac('sha256', authToken).update(`${signed}.${nonce}`, 'utf8').digest('base64');
}

/** A nonce as carrier-a sends them: 20 decimal digits. */
export function plivoNonce(): string {
  return Array.from({ length: 20 }, () => randomInt(10)).join('');
}
