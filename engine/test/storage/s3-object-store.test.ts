/**
 * The S3 object store against the fake S3 (engine/test/fakes/s3), which verifies every signature independently:
 * objects stored from bytes and from files, read whole and by range byte for byte, deleted; keys that need
 * encoding; and each kind of refusal made a clear ObjectStoreError.
 */
import { randomBytes } from 'node:crypto';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3ObjectStore, type S3ObjectStoreOptions } from '../../src/storage/s3-object-store.ts';
import { EMPTY_PAYLOAD_SHA256, signRequest } from '../../src/storage/sigv4.ts';
import { ERROR_CODES, isErrorCode } from '../../src/protocol/error-codes.ts';
import { ObjectStoreError, STORAGE_ERROR_CODES } from '../../src/storage/storage-error.ts';
import { startFakeS3, type FakeS3 } from '../fakes/index.ts';

let s3: FakeS3;
let dir: string;
let options: S3ObjectStoreOptions;

beforeAll(async () => {
  s3 = await startFakeS3({
    accessKeyId: 'parley-test',
    secretAccessKey: 'parley-test-secret',
    region: 'eu-west-2',
    buckets: ['recordings'],
  });
  dir = await mkdtemp(path.join(tmpdir(), 'parley-s3-store-'));
  options = {
    endpoint: s3.url,
    region: 'eu-west-2',
    bucket: 'recordings',
    accessKeyId: 'parley-test',
    secretAccessKey: 'parley-test-secret',
    forcePathStyle: true,
  };
});
afterAll(async () => {
  await s3?.close();
  await rm(dir, { recursive: true, force: true });
});

async function bytesOf(body: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of body) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function refusal(work: Promise<unknown>): Promise<ObjectStoreError> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ObjectStoreError);
  return error as ObjectStoreError;
}

describe('the S3 object store', () => {
  it('puts, heads, gets (whole and by range, byte for byte) and deletes an object', async () => {
    const store = new S3ObjectStore(options);
    const audio = randomBytes(10_000);
    await store.put('org-1/call-1.ogg', audio, { contentType: 'audio/ogg' });
    expect(s3.object('recordings', 'org-1/call-1.ogg')?.body.equals(audio)).toBe(true);
    expect(s3.object('recordings', 'org-1/call-1.ogg')?.contentType).toBe('audio/ogg');
    expect(await store.head('org-1/call-1.ogg')).toEqual({ size: 10_000, contentType: 'audio/ogg' });

    const whole = await store.get('org-1/call-1.ogg');
    expect(whole).toMatchObject({ size: 10_000, range: undefined, contentType: 'audio/ogg' });
    expect((await bytesOf(whole!.body)).equals(audio)).toBe(true);

    for (const range of [
      { start: 0, end: 0 },
      { start: 100, end: 1_099 },
      { start: 9_975, end: 9_999 },
    ]) {
      const part = await store.get('org-1/call-1.ogg', range);
      expect(part).toMatchObject({ size: 10_000, range });
      expect((await bytesOf(part!.body)).equals(audio.subarray(range.start, range.end + 1))).toBe(true);
    }
    expect(s3.requests.filter((r) => r.range).map((r) => r.range)).toEqual([
      'bytes=0-0',
      'bytes=100-1099',
      'bytes=9975-9999',
    ]);

    await store.delete('org-1/call-1.ogg');
    expect(await store.head('org-1/call-1.ogg')).toBeUndefined();
    expect(await store.get('org-1/call-1.ogg')).toBeUndefined();
    await store.delete('org-1/call-1.ogg'); // deleting what is gone is not an error
  });

  it('uploads a file streamed, with its SHA-256 signed, and keys that need encoding', async () => {
    const store = new S3ObjectStore(options);
    const file = path.join(dir, 'long call.ogg');
    const audio = randomBytes(700_000);
    await writeFile(file, audio);
    const key = "org 1/call $1+(é)'s.ogg";
    await store.put(key, { file }, { contentType: 'audio/ogg' });
    expect(s3.object('recordings', key)?.body.equals(audio)).toBe(true);
    expect((await store.head(key))?.size).toBe(700_000);
    const tail = await store.get(key, { start: 699_990, end: 699_999 });
    expect((await bytesOf(tail!.body)).equals(audio.subarray(699_990))).toBe(true);
  });

  it('uploads a stream of known length unsigned (UNSIGNED-PAYLOAD), the request itself still signed', async () => {
    const store = new S3ObjectStore(options);
    const audio = randomBytes(50_000);
    await store.put('org-1/streamed.ogg', {
      stream: Readable.from([audio.subarray(0, 20_000), audio.subarray(20_000)]),
      length: 50_000,
    });
    expect(s3.object('recordings', 'org-1/streamed.ogg')?.body.equals(audio)).toBe(true);
  });

  it('refuses a wrong secret or an unknown access key with an unauthorized error that says what to check', async () => {
    const wrongSecret = await refusal(
      new S3ObjectStore({ ...options, secretAccessKey: 'not-the-secret' }).put('org-1/x.ogg', Buffer.from('x')),
    );
    expect(wrongSecret).toMatchObject({
      code: 'unauthorized',
      retryable: false,
      status: 403,
      s3Code: 'SignatureDoesNotMatch',
    });
    expect(wrongSecret.message).toMatch(/SignatureDoesNotMatch.*PARLEY_S3_SECRET_ACCESS_KEY/);

    const unknownKey = await refusal(new S3ObjectStore({ ...options, accessKeyId: 'nobody' }).get('org-1/x.ogg'));
    expect(unknownKey).toMatchObject({ code: 'unauthorized', s3Code: 'InvalidAccessKeyId' });
    expect(unknownKey.message).toMatch(/PARLEY_S3_ACCESS_KEY_ID/);

    // HEAD answers have no body: the status alone says it.
    expect(
      await refusal(new S3ObjectStore({ ...options, secretAccessKey: 'not-the-secret' }).head('org-1/x.ogg')),
    ).toMatchObject({ code: 'unauthorized', status: 403 });
    expect(s3.object('recordings', 'org-1/x.ogg')).toBeUndefined();
  });

  it('names a wrong region, a missing bucket, throttling, a server failure and an unreachable endpoint', async () => {
    expect(
      await refusal(new S3ObjectStore({ ...options, region: 'us-east-1' }).put('a.ogg', Buffer.from('x'))),
    ).toMatchObject({ code: 'invalid_request', s3Code: 'AuthorizationHeaderMalformed' });
    const noBucket = await refusal(new S3ObjectStore({ ...options, bucket: 'nope' }).get('a.ogg'));
    expect(noBucket).toMatchObject({ code: 'invalid_request', s3Code: 'NoSuchBucket', retryable: false });

    const store = new S3ObjectStore(options);
    s3.failNext(1, { status: 503, code: 'SlowDown' });
    expect(await refusal(store.put('a.ogg', Buffer.from('x')))).toMatchObject({
      code: 'rate_limited',
      retryable: true,
    });
    s3.failNext(1, { status: 500, code: 'InternalError' });
    expect(await refusal(store.put('a.ogg', Buffer.from('x')))).toMatchObject({
      code: 'upstream_failed',
      retryable: true,
      s3Code: 'InternalError',
    });

    const closed = await refusal(
      new S3ObjectStore({ ...options, endpoint: `http://127.0.0.1:${await closedPort()}` }).head('a.ogg'),
    );
    expect(closed).toMatchObject({ code: 'upstream_failed', retryable: true });
    expect(closed.message).toMatch(/ECONNREFUSED/);
  });

  it('takes its error codes and their retryability from the engine’s one registry', () => {
    for (const [code, { retryable }] of Object.entries(STORAGE_ERROR_CODES)) {
      expect(isErrorCode(code), code).toBe(true);
      expect(retryable, code).toBe(ERROR_CODES[code as keyof typeof ERROR_CODES].retryable);
    }
  });

  it('refuses a key that is not a plain relative name before sending anything', async () => {
    const store = new S3ObjectStore(options);
    const before = s3.requests.length;
    for (const key of ['', '/abs.ogg', 'a/../b.ogg', 'a//b.ogg', './a.ogg']) {
      expect(await refusal(store.put(key, Buffer.from('x')))).toMatchObject({ code: 'invalid_request' });
    }
    expect(s3.requests.length).toBe(before);
  });

  it('addresses objects path-style or virtual-host style, signing the host it sends to', async () => {
    expect(new S3ObjectStore(options).objectUrl('org/a b.ogg').href).toBe(`${s3.url}/recordings/org/a%20b.ogg`);
    const virtual = new S3ObjectStore({
      ...options,
      endpoint: 'https://s3.eu-west-2.amazonaws.com',
      forcePathStyle: false,
    });
    expect(virtual.objectUrl('org/a.ogg').href).toBe('https://recordings.s3.eu-west-2.amazonaws.com/org/a.ogg');

    // The fake reads the bucket from the Host header: a virtual-host request signed for that host is accepted.
    s3.putObject('recordings', 'org/virtual.ogg', Buffer.from('virtual host'));
    const port = new URL(s3.url).port;
    const url = new URL(`http://recordings.s3.test:${port}/org/virtual.ogg`);
    const signed = signRequest({ method: 'GET', url, payloadHash: EMPTY_PAYLOAD_SHA256 }, options, {
      region: 'eu-west-2',
      date: new Date(),
    });
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: url.pathname, headers: { ...signed.headers, host: url.host } },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => (body += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(answer).toEqual({ status: 200, body: 'virtual host' });
  });
});
