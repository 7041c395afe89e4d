/**
 * An S3-compatible bucket (AWS S3, MinIO, Ceph RGW, R2, …) through its REST API over fetch: PutObject, HeadObject,
 * GetObject (with Range) and DeleteObject, each signed with Signature Version 4 (sigv4.ts). Objects are addressed
 * path-style, `<endpoint>/<bucket>/<key>`, or virtual-host style, `<bucket>.<endpoint host>/<key>`.
 *
 * Keys are whole object keys: a configured prefix is put in front by whoever builds them (recording-storage.ts).
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import {
  checkObjectKey,
  type ByteRange,
  type ObjectSource,
  type ObjectStore,
  type StoredObject,
  type StoredObjectInfo,
} from './object-store.ts';
import type { S3BucketConfig } from './s3-config.ts';
import { s3ResponseError } from './s3-errors.ts';
import { EMPTY_PAYLOAD_SHA256, signRequest, UNSIGNED_PAYLOAD, uriEncode } from './sigv4.ts';
import { ObjectStoreError } from './storage-error.ts';

/**
 * How long HEAD, GET and DELETE wait for the answer's headers, ms: S3 answers in well under a second; 15 s rides
 * out a slow link without holding a request (or an upload's retries) for minutes. A GET's body then streams untimed.
 */
export const S3_REQUEST_TIMEOUT_MS = 15_000;
/** How long one PUT may take, ms: an hour's recording is ~15 MB at 32 kbit/s, two minutes even over 1 Mbit/s. */
export const S3_UPLOAD_TIMEOUT_MS = 120_000;

export type S3ObjectStoreOptions = Pick<
  S3BucketConfig,
  'bucket' | 'endpoint' | 'region' | 'accessKeyId' | 'secretAccessKey' | 'forcePathStyle'
>;

interface SendOptions {
  headers?: Record<string, string>;
  body?: Uint8Array | ReadableStream;
  payloadHash?: string;
  timeoutMs?: number;
}

export class S3ObjectStore implements ObjectStore {
  readonly location: string;
  readonly bucket: string;
  readonly #options: S3ObjectStoreOptions;
  readonly #endpoint: URL;

  constructor(options: S3ObjectStoreOptions) {
    this.#options = options;
    this.#endpoint = new URL(options.endpoint);
    this.bucket = options.bucket;
    this.location = `s3://${options.bucket}`;
  }

  /** The URL of `key`: path-style or virtual-host style, the key URI-encoded segment by segment. */
  objectUrl(key: string): URL {
    const encoded = uriEncode(checkObjectKey(key), true);
    const base = this.#endpoint;
    const basePath = base.pathname.replace(/\/+$/, '');
    return this.#options.forcePathStyle
      ? new URL(`${base.protocol}//${base.host}${basePath}/${this.bucket}/${encoded}`)
      : new URL(`${base.protocol}//${this.bucket}.${base.host}${basePath}/${encoded}`);
  }

  async put(key: string, source: ObjectSource, options: { contentType?: string } = {}): Promise<void> {
    const headers: Record<string, string> = options.contentType ? { 'content-type': options.contentType } : {};
    let response: Response;
    if (source instanceof Uint8Array) {
      response = await this.#send('PUT', key, {
        headers,
        body: source,
        payloadHash: sha256(source),
        timeoutMs: S3_UPLOAD_TIMEOUT_MS,
      });
    } else if ('stream' in source) {
      // Bytes that pass once cannot be hashed before they are sent: S3 takes them unsigned (the request still is).
      // A stream's content-length is given (and signed) because fetch would otherwise send it chunked, which
      // PutObject refuses.
      response = await this.#send('PUT', key, {
        headers: { ...headers, 'content-length': String(source.length) },
        body: Readable.toWeb(source.stream) as ReadableStream,
        payloadHash: UNSIGNED_PAYLOAD,
        timeoutMs: S3_UPLOAD_TIMEOUT_MS,
      });
    } else {
      // Hashed first (S3 then checks every byte it stores), streamed second: a recording never sits whole in memory.
      const [info, payloadHash] = await Promise.all([stat(source.file), hashFile(source.file)]).catch(
        (error: unknown) => {
          throw new ObjectStoreError('internal', `could not read ${source.file}: ${(error as Error).message}`, {
            cause: error,
          });
        },
      );
      response = await this.#send('PUT', key, {
        headers: { ...headers, 'content-length': String(info.size) },
        body: Readable.toWeb(createReadStream(source.file)) as ReadableStream,
        payloadHash,
        timeoutMs: S3_UPLOAD_TIMEOUT_MS,
      });
    }
    if (!response.ok) throw await s3ResponseError(response, `PUT ${key}`);
    await response.body?.cancel();
  }

  async head(key: string): Promise<StoredObjectInfo | undefined> {
    const response = await this.#send('HEAD', key);
    if (response.status === 404) return undefined;
    if (!response.ok) throw await s3ResponseError(response, `HEAD ${key}`);
    return {
      size: contentLength(response, `HEAD ${key}`),
      contentType: response.headers.get('content-type') ?? undefined,
    };
  }

  async get(key: string, range?: ByteRange): Promise<StoredObject | undefined> {
    const headers: Record<string, string> = range ? { range: `bytes=${range.start}-${range.end}` } : {};
    const response = await this.#send('GET', key, { headers });
    if (response.status === 404) {
      const error = await s3ResponseError(response, `GET ${key}`);
      // A missing object is an answer; a missing bucket is a misconfiguration.
      if (error.s3Code === 'NoSuchKey' || error.s3Code === undefined) return undefined;
      throw error;
    }
    if (!response.ok) throw await s3ResponseError(response, `GET ${key}`);
    const expected = range ? 206 : 200;
    if (response.status !== expected || !response.body) {
      await response.body?.cancel();
      throw new ObjectStoreError(
        'bad_response',
        `S3 answered GET ${key}${range ? ` bytes=${range.start}-${range.end}` : ''} with ${response.status}, not ${expected}`,
        { status: response.status },
      );
    }
    const size = range ? sizeFromContentRange(response, range) : contentLength(response, `GET ${key}`);
    if (size === undefined) {
      await response.body.cancel();
      throw new ObjectStoreError(
        'bad_response',
        `S3 answered GET ${key} with Content-Range "${response.headers.get('content-range')}", not bytes ${range!.start}-${range!.end}/<size>`,
      );
    }
    return {
      body: Readable.fromWeb(response.body as WebReadableStream<Uint8Array>),
      size,
      contentType: response.headers.get('content-type') ?? undefined,
      range,
    };
  }

  async delete(key: string): Promise<void> {
    const response = await this.#send('DELETE', key);
    if (!response.ok) throw await s3ResponseError(response, `DELETE ${key}`);
    await response.body?.cancel();
  }

  /** Signs and sends one request; a network failure or a timeout becomes an ObjectStoreError (both retryable). */
  async #send(method: string, key: string, options: SendOptions = {}): Promise<Response> {
    const url = this.objectUrl(key);
    const signed = signRequest(
      { method, url, headers: options.headers, payloadHash: options.payloadHash ?? EMPTY_PAYLOAD_SHA256 },
      this.#options,
      { region: this.#options.region, date: new Date() },
    );
    const timeoutMs = options.timeoutMs ?? S3_REQUEST_TIMEOUT_MS;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
      return await fetch(url, {
        method,
        // identity: a Range counts bytes of the stored object, which a compressed answer would not be.
        headers: { ...signed.headers, 'accept-encoding': 'identity' },
        body: options.body,
        signal: abort.signal,
        ...(options.body instanceof ReadableStream ? { duplex: 'half' } : {}),
      } as RequestInit);
    } catch (error) {
      if (abort.signal.aborted)
        throw new ObjectStoreError(
          'upstream_timeout',
          `S3 did not answer ${method} ${key} within ${timeoutMs} ms (${this.#options.endpoint})`,
          { cause: error },
        );
      throw new ObjectStoreError(
        'upstream_failed',
        `S3 at ${this.#options.endpoint} could not be reached for ${method} ${key}: ${networkReason(error)}`,
        { cause: error },
      );
    } finally {
      clearTimeout(timer);
    }
  }
}

function contentLength(response: Response, operation: string): number {
  const size = Number(response.headers.get('content-length'));
  if (!Number.isSafeInteger(size) || size < 0)
    throw new ObjectStoreError('bad_response', `S3 answered ${operation} without a Content-Length`);
  return size;
}

/** The object's size from `Content-Range: bytes <start>-<end>/<size>`, when it is the range asked for. */
function sizeFromContentRange(response: Response, range: ByteRange): number | undefined {
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(response.headers.get('content-range')?.trim() ?? '');
  if (!match || Number(match[1]) !== range.start || Number(match[2]) !== range.end) return undefined;
  return Number(match[3]);
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function hashFile(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** fetch says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND, …) is in its cause. */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}
