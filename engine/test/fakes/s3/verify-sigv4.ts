/**
 * The fake S3's check of a request's Signature Version 4 Authorization header, as S3 does it: rebuild the canonical
 * request from what arrived on the wire, derive the signing key from the secret, and compare signatures. Written
 * apart from engine/src/storage/sigv4.ts on purpose (a byte loop for the URI encoding, its own parsing), so that a
 * mistake in our signer cannot be mirrored here and pass.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** S3 refuses requests dated further than this from its clock, ms (RequestTimeTooSkewed). */
const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;

export interface FakeS3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
}

/** Why S3 refuses a request's authentication: its status, code and message, and extra fields for the XML. */
export interface AuthRefusal {
  status: number;
  code: string;
  message: string;
  details?: Record<string, string>;
}

const AUTHORIZATION =
  /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request,\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/;

/** Undefined when `req` (whose whole body is `body`) is signed with `credentials`; else why not. */
export function verifySigV4(
  req: IncomingMessage,
  body: Buffer,
  credentials: FakeS3Credentials,
  now = new Date(),
): AuthRefusal | undefined {
  const header = req.headers.authorization;
  if (!header) return { status: 403, code: 'AccessDenied', message: 'Access Denied' };
  const parts = AUTHORIZATION.exec(header);
  if (!parts)
    return { status: 400, code: 'AuthorizationHeaderMalformed', message: 'The authorization header is malformed.' };
  const [, accessKeyId, day, region, service, signedHeaderList, signature] = parts as unknown as string[];
  if (accessKeyId !== credentials.accessKeyId) {
    return {
      status: 403,
      code: 'InvalidAccessKeyId',
      message: 'The AWS Access Key Id you provided does not exist in our records.',
      details: { AWSAccessKeyId: accessKeyId! },
    };
  }
  if (region !== credentials.region || service !== 's3') {
    return {
      status: 400,
      code: 'AuthorizationHeaderMalformed',
      message: `The authorization header is malformed; the region '${region}' is wrong; expecting '${credentials.region}'`,
    };
  }
  const amzDate = single(req.headers['x-amz-date']);
  if (!amzDate || !/^\d{8}T\d{6}Z$/.test(amzDate) || amzDate.slice(0, 8) !== day) {
    return {
      status: 403,
      code: 'AccessDenied',
      message: 'AWS authentication requires a valid Date or x-amz-date header',
    };
  }
  const sent = Date.UTC(
    +amzDate.slice(0, 4),
    +amzDate.slice(4, 6) - 1,
    +amzDate.slice(6, 8),
    +amzDate.slice(9, 11),
    +amzDate.slice(11, 13),
    +amzDate.slice(13, 15),
  );
  if (Math.abs(now.getTime() - sent) > MAX_CLOCK_SKEW_MS) {
    return {
      status: 403,
      code: 'RequestTimeTooSkewed',
      message: 'The difference between the request time and the current time is too large.',
    };
  }
  const payloadHash = single(req.headers['x-amz-content-sha256']);
  if (!payloadHash)
    return {
      status: 400,
      code: 'InvalidRequest',
      message: 'Missing required header for this request: x-amz-content-sha256',
    };
  if (payloadHash !== 'UNSIGNED-PAYLOAD') {
    if (!/^[0-9a-f]{64}$/.test(payloadHash))
      return {
        status: 400,
        code: 'InvalidArgument',
        message: 'x-amz-content-sha256 must be UNSIGNED-PAYLOAD or a valid sha256 value.',
      };
    const actual = createHash('sha256').update(body).digest('hex');
    if (actual !== payloadHash) {
      return {
        status: 400,
        code: 'XAmzContentSHA256Mismatch',
        message: "The provided 'x-amz-content-sha256' header does not match what was computed.",
        details: { ClientComputedContentSHA256: payloadHash, S3ComputedContentSHA256: actual },
      };
    }
  }
  const signedHeaders = signedHeaderList!.split(';');
  if (!signedHeaders.includes('host') || !signedHeaders.includes('x-amz-date')) {
    return { status: 403, code: 'AccessDenied', message: 'The host and x-amz-date headers must be signed.' };
  }

  const [rawPath, rawQuery = ''] = (req.url ?? '/').split('?', 2) as [string, string?];
  const canonicalRequest = [
    req.method ?? 'GET',
    rawPath
      .split('/')
      .map((segment) => s3Encode(percentDecode(segment)))
      .join('/'),
    canonicalQueryOf(rawQuery),
    signedHeaders.map((name) => `${name}:${headerValue(req, name)}\n`).join(''),
    signedHeaderList,
    payloadHash,
  ].join('\n');
  const scope = `${day}/${region}/s3/aws4_request`;
  const stringToSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${createHash('sha256').update(canonicalRequest, 'utf8').digest('hex')}`;
  let key: Buffer = hmacSha256(Buffer.from(`AWS4${credentials.secretAccessKey}`, 'utf8'), day!);
  for (const part of [region!, 's3', 'aws4_request']) key = hmacSha256(key, part);
  const expected = hmacSha256(key, stringToSign);
  const provided = Buffer.from(signature!, 'hex');
  if (provided.length !== expected.length || !timingSafeEqual(provided, expected)) {
    return {
      status: 403,
      code: 'SignatureDoesNotMatch',
      message:
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
      details: {
        AWSAccessKeyId: accessKeyId!,
        StringToSign: stringToSign,
        SignatureProvided: signature!,
        CanonicalRequest: canonicalRequest,
      },
    };
  }
  return undefined;
}

function hmacSha256(key: Buffer, text: string): Buffer {
  return createHmac('sha256', key).update(Buffer.from(text, 'utf8')).digest();
}

/** The header as S3 canonicalises it: repeated values joined by commas, trimmed, inner whitespace runs made one space. */
function headerValue(req: IncomingMessage, name: string): string {
  const value = req.headers[name];
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return text.trim().replace(/\s+/g, ' ');
}

function canonicalQueryOf(rawQuery: string): string {
  if (rawQuery === '') return '';
  const pairs = rawQuery
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const at = pair.indexOf('=');
      const name = at < 0 ? pair : pair.slice(0, at);
      const value = at < 0 ? '' : pair.slice(at + 1);
      return `${s3Encode(percentDecode(name))}=${s3Encode(percentDecode(value))}`;
    });
  return pairs.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join('&');
}

/** `%XX` sequences to bytes, then UTF-8 text; a `+` stays a plus (S3 does not read it as a space in a path). */
function percentDecode(text: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i += 1) {
    if (text[i] === '%' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(text[i]!, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Each UTF-8 byte outside A–Z a–z 0–9 `-` `_` `.` `~` as %XX, upper-case hex. */
function s3Encode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
