/**
 * GET /voice-sessions/{sessionId}/recording: the engine's file served byte for byte, with single Range requests
 * (206 and Content-Range), 416 for an unsatisfiable range, 403 for another organisation's or an unknown call, and
 * 404 before the recording exists. The recording event of the engine is what makes the call point at its file.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callCodecs, subjects } from '@parley/engine/protocol';
import { CallEventPersister } from '../src/calls/events/call-event-persister.ts';
import { newId } from '../src/db/ids.ts';
import { parseRange } from '../src/routes/v1/voice-sessions/recording.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedAgent, seedCall, seedOrganisation, type SeededOrganisation } from './support/seed.ts';
import { createIsolatedBus } from './support/workers.ts';

let t: TestApp;
let dir: string;
let org: SeededOrganisation;
let other: SeededOrganisation;
let agentId: string;
const audio = randomBytes(10_000);

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'parley-recordings-'));
  // Its own bus namespace: the call events' durable consumer is not shared with another file's persister.
  t = await startTestApp({ recordingsDir: dir, bus: await createIsolatedBus() });
  org = await seedOrganisation(t.db.sql, 'Sunrise');
  other = await seedOrganisation(t.db.sql, 'Other');
  agentId = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
});
afterAll(async () => {
  await t?.close();
  await t?.bus.close();
  await rm(dir, { recursive: true, force: true });
});

/** A finished call whose engine announced its recording, as the event persister records it. */
async function recordedCall(): Promise<string> {
  const callId = await seedCall(t.db.sql, org.organisationId, agentId, {
    call_status: 'IN_PROGRESS',
    dispatched_at: new Date(),
  });
  const relative = `${org.organisationId}/${callId}.ogg`;
  await mkdir(path.join(dir, org.organisationId), { recursive: true });
  await writeFile(path.join(dir, relative), audio);
  const persister = new CallEventPersister(t.db.sql, () => {}).listen(t.bus);
  t.bus.publish(
    subjects.callEvents(callId),
    callCodecs.event.encode({ type: 'recording', path: relative, format: 'audio/ogg', durationMs: 5_000 }),
  );
  await expect
    .poll(async () => (await t.db.sql`select recording_url from call_records where id = ${callId}`)[0]?.recording_url)
    .toBe(`/voice-sessions/${callId}/recording`);
  await persister.close();
  return callId;
}
const get = (key: string, id: string, range?: string) =>
  t.call(key, { method: 'GET', url: `/api/v1/voice-sessions/${id}/recording`, headers: range ? { range } : {} });

describe('the recording route', () => {
  it('serves the whole file, then single ranges byte for byte', async () => {
    const id = await recordedCall();
    const whole = await get(org.key, id);
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-type']).toBe('audio/ogg');
    expect(whole.headers['accept-ranges']).toBe('bytes');
    expect(whole.rawPayload.equals(audio)).toBe(true);

    const middle = await get(org.key, id, 'bytes=100-1099');
    expect(middle.statusCode).toBe(206);
    expect(middle.headers['content-range']).toBe('bytes 100-1099/10000');
    expect(middle.rawPayload.equals(audio.subarray(100, 1100))).toBe(true);

    const open = await get(org.key, id, 'bytes=9990-');
    expect(open.headers['content-range']).toBe('bytes 9990-9999/10000');
    expect(open.rawPayload.equals(audio.subarray(9990))).toBe(true);

    const suffix = await get(org.key, id, 'bytes=-25');
    expect(suffix.headers['content-range']).toBe('bytes 9975-9999/10000');
    expect(suffix.rawPayload.equals(audio.subarray(9975))).toBe(true);

    const past = await get(org.key, id, 'bytes=10000-');
    expect(past.statusCode).toBe(416);
    expect(past.headers['content-range']).toBe('bytes */10000');
  });

  it('is 403 for another organisation’s call and an unknown one, 404 before a recording exists, 400 for a bad id', async () => {
    const id = await recordedCall();
    expect((await get(other.key, id)).statusCode).toBe(403);
    expect((await get(org.key, newId())).statusCode).toBe(403);
    const unrecorded = await seedCall(t.db.sql, org.organisationId, agentId, {});
    expect((await get(org.key, unrecorded)).statusCode).toBe(404);
    expect((await get(org.key, 'not-an-id')).statusCode).toBe(400);
  });

  it('reads ranges as RFC 9110 says', () => {
    expect(parseRange(undefined, 100)).toBeUndefined();
    expect(parseRange('items=0-5', 100)).toBeUndefined();
    expect(parseRange('bytes=0-5,10-20', 100)).toBeUndefined();
    expect(parseRange('bytes=5-2', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=-0', 100)).toBe('unsatisfiable');
    expect(parseRange('bytes=90-500', 100)).toEqual({ start: 90, end: 99 });
    expect(parseRange('bytes=-500', 100)).toEqual({ start: 0, end: 99 });
  });
});
