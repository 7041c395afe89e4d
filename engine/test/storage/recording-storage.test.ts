/**
 * What happens to a finished recording: without a bucket it stays in the local folder; with one it is uploaded under
 * the prefix and its local file removed; a failure that may pass is retried with backoff; one that persists, or
 * cannot pass, leaves the file on the disk and the recording path naming it there.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RecordingStorage } from '../../src/storage/recording-storage.ts';
import { S3ObjectStore, type S3ObjectStoreOptions } from '../../src/storage/s3-object-store.ts';
import { startFakeS3, type FakeS3 } from '../fakes/index.ts';

let s3: FakeS3;
let dir: string;
let options: S3ObjectStoreOptions;
const logged: { event: string; detail?: object }[] = [];
const log = (event: string, detail?: object) => logged.push({ event, detail });
const audio = randomBytes(20_000);

beforeAll(async () => {
  s3 = await startFakeS3({ accessKeyId: 'engine', secretAccessKey: 'engine-secret' });
  options = {
    endpoint: s3.url,
    region: 'us-east-1',
    bucket: 'recordings',
    accessKeyId: 'engine',
    secretAccessKey: 'engine-secret',
    forcePathStyle: true,
  };
});
afterAll(async () => {
  await s3?.close();
});
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'parley-recording-storage-'));
  logged.length = 0;
  return () => rm(dir, { recursive: true, force: true });
});

/** A finished recording of call `callId`, on the disk where the recorder leaves it. */
async function finishedRecording(storage: RecordingStorage, callId: string): Promise<{ key: string; file: string }> {
  const key = `org-1/${callId}.ogg`;
  const file = storage.localFile(key);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, audio);
  return { key, file };
}

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

function storageWith(bucketOptions: S3ObjectStoreOptions, retryDelaysMs = [20, 40, 80]): RecordingStorage {
  return new RecordingStorage({
    recordingsDir: dir,
    log,
    retryDelaysMs,
    bucket: { store: new S3ObjectStore(bucketOptions), prefix: 'parley/prod' },
  });
}

describe('recording storage', () => {
  it('leaves a recording in the local folder when no bucket is configured', async () => {
    const storage = new RecordingStorage({ recordingsDir: dir, log });
    const { key, file } = await finishedRecording(storage, 'call-local');
    expect(await storage.finish(key, 'audio/ogg')).toBe('org-1/call-local.ogg');
    expect((await readFile(file)).equals(audio)).toBe(true);
  });

  it('uploads a finished recording under the prefix, then removes the local file', async () => {
    const storage = storageWith(options);
    const { key, file } = await finishedRecording(storage, 'call-up');
    expect(await storage.finish(key, 'audio/ogg')).toBe('s3://recordings/parley/prod/org-1/call-up.ogg');
    const stored = s3.object('recordings', 'parley/prod/org-1/call-up.ogg');
    expect(stored?.body.equals(audio)).toBe(true);
    expect(stored?.contentType).toBe('audio/ogg');
    expect(await exists(file)).toBe(false);
  });

  it('retries an upload that fails for a while, with growing waits', async () => {
    const storage = storageWith(options);
    const { key, file } = await finishedRecording(storage, 'call-retry');
    s3.failNext(2, { status: 500, code: 'InternalError', method: 'PUT' });
    const puts = () => s3.requests.filter((r) => r.method === 'PUT' && r.key === 'parley/prod/org-1/call-retry.ogg');
    expect(await storage.finish(key, 'audio/ogg')).toBe('s3://recordings/parley/prod/org-1/call-retry.ogg');
    expect(puts().map((r) => r.status)).toEqual([500, 500, 200]);
    expect(logged.map((l) => l.detail)).toMatchObject([
      { attempt: 1, retryInMs: 20 },
      { attempt: 2, retryInMs: 40 },
    ]);
    expect(await exists(file)).toBe(false);
  });

  it('keeps the file on the disk, and names it, when every attempt fails', async () => {
    const storage = storageWith(options);
    const { key, file } = await finishedRecording(storage, 'call-down');
    s3.failNext(4, { status: 503, code: 'SlowDown', method: 'PUT' });
    expect(await storage.finish(key, 'audio/ogg')).toBe('org-1/call-down.ogg');
    expect(s3.requests.filter((r) => r.key.endsWith('call-down.ogg')).length).toBe(4);
    expect((await readFile(file)).equals(audio)).toBe(true);
    expect(logged.at(-1)).toMatchObject({
      event: 'recording upload failed, kept on local disk',
      detail: { attempt: 4, file },
    });
  });

  it('does not retry what cannot pass (a wrong secret), and keeps the file', async () => {
    const storage = storageWith({ ...options, secretAccessKey: 'wrong' });
    const { key, file } = await finishedRecording(storage, 'call-denied');
    expect(await storage.finish(key, 'audio/ogg')).toBe('org-1/call-denied.ogg');
    expect(s3.requests.filter((r) => r.key.endsWith('call-denied.ogg')).map((r) => r.status)).toEqual([403]);
    expect(String((logged[0]?.detail as { error: string }).error)).toMatch(/SignatureDoesNotMatch/);
    expect(await exists(file)).toBe(true);
  });

  it('stops retrying when closed: the file stays, and close waits for the recording', async () => {
    const storage = storageWith(options, [60_000]);
    const { key, file } = await finishedRecording(storage, 'call-closing');
    s3.failNext(1, { status: 500, code: 'InternalError', method: 'PUT' });
    const finished = storage.finish(key, 'audio/ogg');
    await expect.poll(() => logged.length).toBe(1);
    const started = Date.now();
    await storage.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await finished).toBe('org-1/call-closing.ogg');
    expect(await exists(file)).toBe(true);
  });
});
