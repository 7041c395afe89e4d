/**
 * S3's refusals, made ObjectStoreErrors. S3 answers an error with its status and an XML body
 * (`<Error><Code>NoSuchBucket</Code><Message>…</Message>…</Error>`); HEAD answers carry no body, so there only the
 * status speaks. The mapping follows the code first (it is precise), the status second.
 */
import { ObjectStoreError, type StorageErrorCode } from './storage-error.ts';

/** Error bodies read at most, bytes: S3's are a few hundred; more is not an S3 error document. */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

/** What an operator should look at for each S3 code that is about configuration rather than the request. */
const HINTS: Readonly<Record<string, string>> = {
  InvalidAccessKeyId: 'check PARLEY_S3_ACCESS_KEY_ID',
  SignatureDoesNotMatch:
    "check PARLEY_S3_SECRET_ACCESS_KEY (and that PARLEY_S3_ENDPOINT and PARLEY_S3_REGION are the server's)",
  AccessDenied: 'the access key may not do this in the bucket',
  RequestTimeTooSkewed: "this machine's clock is more than 15 minutes away from the server's",
  AuthorizationHeaderMalformed: 'check PARLEY_S3_REGION',
  NoSuchBucket: 'check the bucket of PARLEY_RECORDINGS_BUCKET and PARLEY_S3_ENDPOINT',
  PermanentRedirect:
    'the bucket is in another region or needs another endpoint: check PARLEY_S3_REGION and PARLEY_S3_ENDPOINT',
};

/** The ObjectStoreError for a non-2xx `response` to `operation` (e.g. `PUT recordings/a.ogg`). Consumes the body. */
export async function s3ResponseError(response: Response, operation: string): Promise<ObjectStoreError> {
  const { code: s3Code, message } = parseS3Error(await readBounded(response));
  const code = errorCode(response.status, s3Code);
  const hint = s3Code ? HINTS[s3Code] : undefined;
  const said = [s3Code ?? `HTTP ${response.status}`, message].filter(Boolean).join(': ');
  return new ObjectStoreError(code, `S3 refused ${operation}: ${said}${hint ? ` — ${hint}` : ''}`, {
    status: response.status,
    s3Code,
  });
}

/** The Code and Message of an S3 error document; neither when the text is not one. */
export function parseS3Error(xml: string): { code: string | undefined; message: string | undefined } {
  const error = /<Error>([\s\S]*)<\/Error>/.exec(xml)?.[1];
  const field = (name: string) => {
    const value = error === undefined ? undefined : new RegExp(`<${name}>([^<]*)</${name}>`).exec(error)?.[1];
    return value === undefined ? undefined : decodeXmlText(value);
  };
  return { code: field('Code'), message: field('Message') };
}

function errorCode(status: number, s3Code: string | undefined): StorageErrorCode {
  if (s3Code === 'SlowDown' || status === 429 || status === 503) return 'rate_limited';
  if (s3Code === 'RequestTimeout') return 'upstream_timeout';
  if (status >= 500) return 'upstream_failed';
  if (status === 401 || status === 403) return 'unauthorized';
  return 'invalid_request';
}

async function readBounded(response: Response): Promise<string> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= MAX_ERROR_BODY_BYTES) break;
    }
  } catch {
    // A body cut short is still worth what it said so far.
  }
  return Buffer.concat(chunks).toString('utf8');
}

function decodeXmlText(text: string): string {
  return text.replace(/&(lt|gt|quot|apos|amp|#\d+|#x[0-9a-f]+);/gi, (entity, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith('#x')) return String.fromCodePoint(parseInt(lower.slice(2), 16));
    if (lower.startsWith('#')) return String.fromCodePoint(parseInt(lower.slice(1), 10));
    return ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' } as Record<string, string>)[lower] ?? entity;
  });
}
