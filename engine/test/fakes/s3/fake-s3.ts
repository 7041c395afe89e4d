/**
 * A local S3 for tests (docs/architecture.md §7.8): the documented REST API of PutObject, HeadObject, GetObject (one byte
 * range: 206 with Content-Range; unsatisfiable: 416 InvalidRange) and DeleteObject over node:http, buckets in
 * memory, addressed path-style (`/<bucket>/<key>`) or virtual-host style (`Host: <bucket>.<anything>`). Every request
 * must carry a Signature Version 4 Authorization header made with the fake's keys (verify-sigv4.ts); otherwise it
 * answers as S3 does: 403 InvalidAccessKeyId or SignatureDoesNotMatch, XML error bodies, no body for HEAD.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, startHttp } from '../http-kit.ts';
import { verifySigV4, type FakeS3Credentials } from './verify-sigv4.ts';

export interface FakeS3Options {
  /** Defaults: the AWS documentation's example keys, region us-east-1. */
  accessKeyId?: string;
  secretAccessKey?: string;
  region?: string;
  /** Buckets that exist from the start (empty); default `recordings`. */
  buckets?: string[];
}

export interface FakeS3Object {
  body: Buffer;
  contentType: string;
  etag: string;
  lastModified: Date;
}

/** One request as the fake saw it, with the status it answered. */
export interface FakeS3Request {
  method: string;
  bucket: string | undefined;
  key: string;
  range: string | undefined;
  status: number;
}

export interface FakeS3 {
  /** `http://127.0.0.1:<port>`: PARLEY_S3_ENDPOINT. */
  url: string;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** Every request so far, oldest first. */
  requests: FakeS3Request[];
  /** The object under `key`, as stored. */
  object(bucket: string, key: string): FakeS3Object | undefined;
  /** The keys of `bucket`, sorted. */
  keys(bucket: string): string[];
  /** Stores an object directly, as if uploaded. */
  putObject(bucket: string, key: string, body: Uint8Array, contentType?: string): void;
  /**
   * The next `count` authenticated requests (of `method` only, when given) fail with `status` and the S3 error
   * `code`, e.g. 503 SlowDown or 500 InternalError: for retry and fallback tests.
   */
  failNext(count: number, failure: { status: number; code: string; method?: string }): void;
  close(): Promise<void>;
}

export async function startFakeS3(options: FakeS3Options = {}): Promise<FakeS3> {
  const credentials: FakeS3Credentials = {
    // Unless a test names them, each fake has keys of its own, as each real account does.
    accessKeyId: options.accessKeyId ?? `FAKE${randomBytes(8).toString('hex').toUpperCase()}`,
    secretAccessKey: options.secretAccessKey ?? randomBytes(30).toString('base64'),
    region: options.region ?? 'us-east-1',
  };
  const buckets = new Map<string, Map<string, FakeS3Object>>(
    (options.buckets ?? ['recordings']).map((name) => [name, new Map()]),
  );
  const requests: FakeS3Request[] = [];
  const failures: { status: number; code: string; method?: string }[] = [];

  const store = (bucket: string, key: string, body: Buffer, contentType: string) => {
    const object = {
      body,
      contentType,
      etag: `"${createHash('md5').update(body).digest('hex')}"`,
      lastModified: new Date(),
    };
    buckets.get(bucket)!.set(key, object);
    return object;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? 'GET';
    const { bucket, key } = address(req, buckets);
    const entry: FakeS3Request = { method, bucket, key, range: req.headers.range, status: 0 };
    requests.push(entry);
    const answer = (status: number, headers: Record<string, string | number> = {}, body?: Buffer) => {
      entry.status = status;
      res.writeHead(status, {
        'x-amz-request-id': randomBytes(8).toString('hex').toUpperCase(),
        server: 'AmazonS3',
        ...headers,
      });
      res.end(method === 'HEAD' ? undefined : body);
    };
    const refuse = (status: number, code: string, message: string, details: Record<string, string> = {}) => {
      // HEAD answers carry no body: only the status tells what went wrong.
      const xml = Buffer.from(
        errorXml(code, message, {
          ...details,
          ...(key ? { Key: key } : {}),
          ...(bucket ? { BucketName: bucket } : {}),
        }),
      );
      answer(status, { 'content-type': 'application/xml', 'content-length': method === 'HEAD' ? 0 : xml.length }, xml);
    };

    const body = await readBody(req);
    const refusal = verifySigV4(req, body, credentials);
    if (refusal) return refuse(refusal.status, refusal.code, refusal.message, refusal.details);
    const failureAt = failures.findIndex((f) => f.method === undefined || f.method === method);
    if (failureAt >= 0) {
      const [failure] = failures.splice(failureAt, 1);
      return refuse(failure!.status, failure!.code, 'Injected failure (fake S3).');
    }
    const objects = bucket === undefined ? undefined : buckets.get(bucket);
    if (!objects) return refuse(404, 'NoSuchBucket', 'The specified bucket does not exist');
    if (!key) return refuse(501, 'NotImplemented', 'The fake S3 serves objects only, not bucket operations.');

    switch (method) {
      case 'PUT': {
        if (req.headers['content-length'] === undefined)
          return refuse(411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.');
        const object = store(bucket!, key, body, req.headers['content-type'] ?? 'binary/octet-stream');
        return answer(200, { etag: object.etag, 'content-length': 0 });
      }
      case 'HEAD':
      case 'GET': {
        const object = objects.get(key);
        if (!object) return refuse(404, 'NoSuchKey', 'The specified key does not exist.');
        const size = object.body.length;
        const common = {
          'content-type': object.contentType,
          etag: object.etag,
          'last-modified': object.lastModified.toUTCString(),
          'accept-ranges': 'bytes',
        };
        const range = method === 'GET' ? readRange(req.headers.range, size) : undefined;
        if (range === 'unsatisfiable') {
          return refuse(416, 'InvalidRange', 'The requested range is not satisfiable', {
            RangeRequested: req.headers.range!,
            ActualObjectSize: String(size),
          });
        }
        if (!range) return answer(200, { ...common, 'content-length': size }, object.body);
        return answer(
          206,
          {
            ...common,
            'content-length': range.end - range.start + 1,
            'content-range': `bytes ${range.start}-${range.end}/${size}`,
          },
          object.body.subarray(range.start, range.end + 1),
        );
      }
      case 'DELETE':
        objects.delete(key);
        return answer(204);
      default:
        return refuse(405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
    }
  };

  const server = await startHttp(handle);
  return {
    url: server.origin,
    ...credentials,
    requests,
    object: (bucket, key) => buckets.get(bucket)?.get(key),
    keys: (bucket) => [...(buckets.get(bucket)?.keys() ?? [])].sort(),
    putObject: (bucket, key, body, contentType = 'binary/octet-stream') => {
      if (!buckets.has(bucket)) buckets.set(bucket, new Map());
      store(bucket, key, Buffer.from(body), contentType);
    },
    failNext: (count, failure) => {
      for (let i = 0; i < count; i += 1) failures.push(failure);
    },
    close: () => server.close(),
  };
}

/** Bucket and key of a request: virtual-host style when the Host's first label is a bucket, else path-style. */
function address(req: IncomingMessage, buckets: Map<string, unknown>): { bucket: string | undefined; key: string } {
  const path = (req.url ?? '/').split('?', 1)[0]!;
  const hostname = (req.headers.host ?? '').replace(/:\d+$/, '');
  const label = hostname.split('.')[0] ?? '';
  if (hostname.includes('.') && !/^[\d.]+$/.test(hostname) && buckets.has(label)) {
    return { bucket: label, key: decodePath(path.slice(1)) };
  }
  const [bucket, ...rest] = path.slice(1).split('/');
  return { bucket: bucket ? decodePath(bucket) : undefined, key: decodePath(rest.join('/')) };
}

function decodePath(text: string): string {
  return text
    .split('/')
    .map((segment) => decodeURIComponent(segment))
    .join('/');
}

/** One RFC 9110 byte range, as S3 reads it: several ranges or a malformed one are ignored (the whole object). */
function readRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  const match = header === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    return suffix === 0 || size === 0 ? 'unsatisfiable' : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Number(match[2]);
  if (end < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(end, size - 1) };
}

function errorXml(code: string, message: string, details: Record<string, string>): string {
  const fields = Object.entries({
    Code: code,
    Message: message,
    ...details,
    RequestId: randomBytes(8).toString('hex').toUpperCase(),
  })
    .map(([name, value]) => `<${name}>${escapeXml(value)}</${name}>`)
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Error>${fields}</Error>`;
}

function escapeXml(text: string): string {
  return text.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!,
  );
}
