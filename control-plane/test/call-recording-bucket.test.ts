/**
 * GET /voice-sessions/{sessionId}/recording for recordings the engine uploaded to an S3-compatible bucket (the fake
 * S3 of @parley/engine/testing, which checks every signature): streamed from the bucket with the client's range
 * forwarded, and answered exactly as a recording in the local folder is — status, headers and bytes — for every
 * kind of range; 404 before the object exists; a recording whose upload failed still served from the folder; a
 * failing bucket a 500 that tells nothing of the bucket.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bus } from '@parley/engine/bus';
import { callCodecs, subjects } from '@parley/engine/protocol';
import { S3ObjectStore, type S3BucketConfig } from '@parley/engine/storage';
import { startFakeS3, type FakeS3 } from '@parley/engine/testing';
import { buildApp } from '../src/app.ts';
import { KeyStore } from '../src/auth/key-store.ts';
import { CallEventPersister } from '../src/calls/events/call-event-persister.ts';
import { RATE_LIMIT_DEFAULTS } from '../src/rate-limits.ts';
import { KeyRing } from '../src/secrets/key-ring.ts';
import { PUBLIC_URL } from './support/app.ts';
import { createIsolatedBus } from './support/workers.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { seedAgent, seedCall, seedOrganisation, type SeededOrganisation } from './support/seed.ts';

let s3: FakeS3;
let bucket: S3BucketConfig;
let dir: string;
let db: TestDatabase;
let bus: Bus;
let app: FastifyInstance;
let org: SeededOrganisation;
let other: SeededOrganisation;
let agentId: string;
const audio = randomBytes(10_000);

beforeAll(async () => {
  s3 = await startFakeS3({
    accessKeyId: 'parley-cp',
    secretAccessKey: 'control-plane-secret',
    region: 'eu-west-1',
    buckets: ['call-recordings'],
  });
  bucket = {
    bucket: 'call-recordings',
    prefix: 'parley',
    endpoint: s3.url,
    region: 'eu-west-1',
    accessKeyId: 'parley-cp',
    secretAccessKey: 'control-plane-secret',
    forcePathStyle: true,
  };
  dir = await mkdtemp(path.join(tmpdir(), 'parley-recordings-'));
  db = await createTestDatabase();
  // Its own namespace: the call events' durable consumer is not shared with another file's persister.
  bus = await createIsolatedBus();
  const keys = new KeyStore(db.sql, bus, (error) => {
    throw error;
  });
  keys.listen();
  // As server.ts builds it from PARLEY_DATA_DIR and PARLEY_RECORDINGS_BUCKET (startTestApp knows no bucket).
  app = await buildApp({
    config: { publicUrl: PUBLIC_URL, rateLimits: RATE_LIMIT_DEFAULTS },
    sql: db.sql,
    bus,
    keys,
    logger: false,
    secrets: KeyRing.generate('test').ring,
    recordingsDir: dir,
    recordingsBucket: bucket,
  });
  await app.ready();
  org = await seedOrganisation(db.sql, 'Sunrise');
  other = await seedOrganisation(db.sql, 'Other');
  agentId = await seedAgent(db.sql, org.organisationId, 'VOICE');
});
afterAll(async () => {
  await app?.close();
  await bus?.close();
  await db?.close();
  await s3?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A finished call whose engine announced its recording at `recordingPath` (of `callId`), as the persister records it. */
async function announcedCall(recordingPath: (callId: string) => string): Promise<string> {
  const callId = await seedCall(db.sql, org.organisationId, agentId, {
    call_status: 'IN_PROGRESS',
    dispatched_at: new Date(),
  });
  const persister = new CallEventPersister(db.sql, () => {}).listen(bus);
  bus.publish(
    subjects.callEvents(callId),
    callCodecs.event.encode({ type: 'recording', path: recordingPath(callId), format: 'audio/ogg', durationMs: 5_000 }),
  );
  await expect
    .poll(async () => (await db.sql`select recording_path from call_records where id = ${callId}`)[0]?.recording_path)
    .toBe(recordingPath(callId));
  await persister.close();
  return callId;
}

/** The object key the engine gives a call's recording, and the recording path it announces for it. */
const objectKey = (callId: string) => `parley/${org.organisationId}/${callId}.ogg`;
const bucketPath = (callId: string) => `s3://call-recordings/${objectKey(callId)}`;

/** A call whose recording the engine uploaded to the bucket (with the same client the engine uses). */
async function bucketRecording(): Promise<string> {
  const callId = await announcedCall(bucketPath);
  await new S3ObjectStore(bucket).put(objectKey(callId), audio, { contentType: 'audio/ogg' });
  return callId;
}

/** A call whose recording stayed in the local folder. */
async function localRecording(): Promise<string> {
  const callId = await announcedCall((id) => `${org.organisationId}/${id}.ogg`);
  await mkdir(path.join(dir, org.organisationId), { recursive: true });
  await writeFile(path.join(dir, org.organisationId, `${callId}.ogg`), audio);
  return callId;
}

const get = (key: string, id: string, range?: string) => {
  const request: InjectOptions = {
    method: 'GET',
    url: `/api/v1/voice-sessions/${id}/recording`,
    headers: { authorization: `Bearer ${key}`, ...(range ? { range } : {}) },
  };
  return app.inject(request);
};

/** What a client can tell of an answer: status, the headers that describe the bytes, and the bytes. */
async function seen(key: string, id: string, range?: string) {
  const answer = await get(key, id, range);
  const {
    'content-type': type,
    'content-length': length,
    'content-range': contentRange,
    'accept-ranges': acceptRanges,
  } = answer.headers;
  return {
    status: answer.statusCode,
    type,
    length,
    contentRange,
    acceptRanges,
    body: answer.rawPayload.toString('base64'),
  };
}

describe('the recording route with a recordings bucket', () => {
  it('streams the object whole, a range byte for byte, an open range and a suffix, forwarding the range to the bucket', async () => {
    const id = await bucketRecording();
    const whole = await get(org.key, id);
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-type']).toBe('audio/ogg');
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.headers['content-length']).toBe('10000');
    expect(whole.rawPayload.equals(audio)).toBe(true);

    const middle = await get(org.key, id, 'bytes=100-1099');
    expect(middle.statusCode).toBe(206);
    expect(middle.headers['content-range']).toBe('bytes 100-1099/10000');
    expect(middle.headers['content-length']).toBe('1000');
    expect(middle.rawPayload.equals(audio.subarray(100, 1100))).toBe(true);
    expect(s3.requests.filter((r) => r.key === objectKey(id) && r.method === 'GET').map((r) => r.range)).toEqual([
      undefined,
      'bytes=100-1099',
    ]);

    const open = await get(org.key, id, 'bytes=9990-');
    expect(open.headers['content-range']).toBe('bytes 9990-9999/10000');
    expect(open.rawPayload.equals(audio.subarray(9990))).toBe(true);

    const suffix = await get(org.key, id, 'bytes=-25');
    expect(suffix.statusCode).toBe(206);
    expect(suffix.headers['content-range']).toBe('bytes 9975-9999/10000');
    expect(suffix.rawPayload.equals(audio.subarray(9975))).toBe(true);

    const past = await get(org.key, id, 'bytes=10000-');
    expect(past.statusCode).toBe(416);
    expect(past.headers['content-range']).toBe('bytes */10000');
    expect(past.json()).toMatchObject({ success: false, code: 'range_not_satisfiable' });
  });

  it('answers every kind of range exactly as it does for a recording in the local folder', async () => {
    const inBucket = await bucketRecording();
    const onDisk = await localRecording();
    const ranges = [
      undefined,
      'bytes=0-0',
      'bytes=0-9999',
      'bytes=9999-',
      'bytes=9000-20000',
      'bytes=-10000',
      'bytes=-20000',
      'bytes=-1',
      'bytes=10000-',
      'bytes=10000-10005',
      'bytes=-0',
      'bytes=5-2',
      'bytes=0-5,10-20',
      'items=0-5',
      'bytes=abc',
    ];
    for (const range of ranges) {
      expect(await seen(org.key, inBucket, range), range).toEqual(await seen(org.key, onDisk, range));
    }
  });

  it('is 404 before the recording is uploaded or announced, and 403 for another organisation', async () => {
    const announced = await announcedCall(bucketPath);
    expect((await get(org.key, announced)).statusCode).toBe(404);
    expect((await get(org.key, announced, 'bytes=0-9')).statusCode).toBe(404);
    const unrecorded = await seedCall(db.sql, org.organisationId, agentId, {});
    expect((await get(org.key, unrecorded)).statusCode).toBe(404);
    // Recorded to a bucket this control plane has no credentials for.
    const elsewhere = await announcedCall((id) => `s3://another-bucket/${id}.ogg`);
    expect((await get(org.key, elsewhere)).statusCode).toBe(404);

    await new S3ObjectStore(bucket).put(objectKey(announced), audio, { contentType: 'audio/ogg' });
    expect((await get(org.key, announced)).statusCode).toBe(200);
    expect((await get(other.key, announced)).statusCode).toBe(403);
  });

  it('serves a recording whose upload failed (kept on the engine’s disk) from the local folder', async () => {
    const id = await localRecording();
    const answer = await get(org.key, id, 'bytes=-25');
    expect(answer.statusCode).toBe(206);
    expect(answer.rawPayload.equals(audio.subarray(9975))).toBe(true);
  });

  it('answers 500 when the bucket fails, telling nothing of the bucket', async () => {
    const id = await bucketRecording();
    s3.failNext(1, { status: 500, code: 'InternalError', method: 'HEAD' });
    const failed = await get(org.key, id);
    expect(failed.statusCode).toBe(500);
    expect(failed.json()).toMatchObject({ success: false });
    expect(failed.body).not.toMatch(/InternalError|call-recordings|127\.0\.0\.1/);
    expect((await get(org.key, id)).statusCode).toBe(200);
  });
});
