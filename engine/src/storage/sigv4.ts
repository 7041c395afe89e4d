/**
 * AWS Signature Version 4 as S3 documents it for the Authorization header ("Authenticating Requests: Using the
 * Authorization Header", payload in a single chunk): canonical request → string to sign → signing key (an HMAC
 * chain over date, region and service) → signature. Written here rather than taken from the AWS SDK: an S3 client
 * needs four HMACs and one canonical form, and the SDK is a large tree of packages.
 */
import { createHash, createHmac } from 'node:crypto';

export const SIGV4_ALGORITHM = 'AWS4-HMAC-SHA256';
/** The `x-amz-content-sha256` of a body that is streamed without being hashed first (S3 accepts it over TLS or not). */
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
/** The `x-amz-content-sha256` of a request without a body (GET, HEAD, DELETE). */
export const EMPTY_PAYLOAD_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

export interface SigV4Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

export interface SigV4Request {
  method: string;
  /** Its host is the signed Host header (with the port when not the scheme's default), as fetch will send it. */
  url: URL;
  /** Headers to sign besides host, x-amz-date and x-amz-content-sha256 (`range`, `content-type`, …). */
  headers?: Readonly<Record<string, string>>;
  /** Hex SHA-256 of the body, EMPTY_PAYLOAD_SHA256 for none, or UNSIGNED_PAYLOAD. */
  payloadHash: string;
}

export interface SigV4Scope {
  region: string;
  /** `s3` unless said otherwise. */
  service?: string;
  /** The request's time; S3 refuses one more than 15 minutes away from its clock. */
  date: Date;
}

export interface SignedRequest {
  /** What to send: the given headers plus x-amz-date, x-amz-content-sha256 and authorization (fetch adds Host). */
  headers: Record<string, string>;
  canonicalRequest: string;
  stringToSign: string;
  signature: string;
}

export function signRequest(request: SigV4Request, credentials: SigV4Credentials, scope: SigV4Scope): SignedRequest {
  const service = scope.service ?? 's3';
  const amzDate = toAmzDate(scope.date);
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = {
    ...request.headers,
    'x-amz-date': amzDate,
    'x-amz-content-sha256': request.payloadHash,
  };
  const signed = canonicalHeaders({ ...headers, host: request.url.host });
  const canonicalRequest = [
    request.method.toUpperCase(),
    canonicalUri(request.url.pathname),
    canonicalQuery(request.url.searchParams),
    signed.block,
    signed.names,
    request.payloadHash,
  ].join('\n');
  const credentialScope = `${day}/${scope.region}/${service}/aws4_request`;
  const stringToSign = [SIGV4_ALGORITHM, amzDate, credentialScope, sha256Hex(canonicalRequest)].join('\n');
  const signature = hmac(signingKey(credentials.secretAccessKey, day, scope.region, service), stringToSign).toString(
    'hex',
  );
  headers.authorization = `${SIGV4_ALGORITHM} Credential=${credentials.accessKeyId}/${credentialScope}, SignedHeaders=${signed.names}, Signature=${signature}`;
  return { headers, canonicalRequest, stringToSign, signature };
}

/** `20130524T000000Z`: ISO 8601 basic format, UTC, whole seconds. */
export function toAmzDate(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/** The key of the last HMAC: the secret, narrowed to one day, region and service. */
export function signingKey(secretAccessKey: string, day: string, region: string, service: string): Buffer {
  const dateKey = hmac(`AWS4${secretAccessKey}`, day);
  return hmac(hmac(hmac(dateKey, region), service), 'aws4_request');
}

/**
 * S3's URI encoding: every byte but the unreserved `A-Z a-z 0-9 - _ . ~` as %XX in upper-case hex; `/` too unless
 * `keepSlash` (a path). encodeURIComponent leaves `!'()*` alone, which S3 encodes.
 */
export function uriEncode(text: string, keepSlash = false): string {
  const encoded = encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return keepSlash ? encoded.replace(/%2F/g, '/') : encoded;
}

/** The path, each segment URI-encoded once (S3 does not double-encode): what was sent, decoded, then encoded. */
function canonicalUri(pathname: string): string {
  return (
    pathname
      .split('/')
      .map((segment) => uriEncode(decodeURIComponent(segment)))
      .join('/') || '/'
  );
}

/** Parameters encoded, sorted by name then value, joined by `&`; a parameter without a value is `name=`. */
function canonicalQuery(params: URLSearchParams): string {
  return [...params]
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([a, av], [b, bv]) => (a === b ? compare(av, bv) : compare(a, b)))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

/** `name:value\n` per header, names lower-case and sorted, values trimmed with inner runs of spaces made one. */
function canonicalHeaders(headers: Record<string, string>): { block: string; names: string } {
  const entries = Object.entries(headers)
    .map(([name, value]) => [name.toLowerCase(), value.trim().replace(/\s+/g, ' ')] as const)
    .sort(([a], [b]) => compare(a, b));
  return {
    block: entries.map(([name, value]) => `${name}:${value}\n`).join(''),
    names: entries.map(([name]) => name).join(';'),
  };
}

/** Code-unit order, as AWS sorts (localeCompare would put `X-` and `x-` together differently). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}
