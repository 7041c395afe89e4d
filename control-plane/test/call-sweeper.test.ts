/** The sweeper: a live call whose engine went silent, or that ran past its limit, is finished by the control plane. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callCodecs, subjects } from '@parley/engine/protocol';
import {
  CallSweeper,
  DEFAULT_MAX_CALL_DURATION_MS,
  ENGINE_SILENCE_MS,
  MAX_DURATION_MARGIN_MS,
} from '../src/calls/jobs/call-sweeper.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedAgent, seedCall, seedOrganisation, type SeededOrganisation } from './support/seed.ts';
import { createIsolatedBus } from './support/workers.ts';

let t: TestApp;
let org: SeededOrganisation;
let agentId: string;

beforeAll(async () => {
  t = await startTestApp({ bus: await createIsolatedBus() });
  org = await seedOrganisation(t.db.sql, 'Sweep');
  agentId = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
});
afterAll(async () => {
  await t?.close();
  await t?.bus.close();
});

const ago = (ms: number) => new Date(Date.now() - ms);
const MINUTE = 60_000;
const record = async (id: string) =>
  (await t.call(org.key, { method: 'GET', url: `/api/v1/voice-sessions/${id}` })).json().data;

describe('the sweeper', () => {
  it('finishes silent and overlong calls, once, tells their engines to hang up, and leaves healthy calls alone', async () => {
    const silentSince = ago(ENGINE_SILENCE_MS + MINUTE);
    const silent = await seedCall(t.db.sql, org.organisationId, agentId, {
      call_status: 'IN_PROGRESS',
      dispatched_at: ago(ENGINE_SILENCE_MS + 5 * MINUTE),
      answered_at: ago(ENGINE_SILENCE_MS + 4 * MINUTE),
      last_event_at: silentSince,
    });
    const neverAnswered = await seedCall(t.db.sql, org.organisationId, agentId, {
      call_status: 'RINGING',
      dispatched_at: ago(DEFAULT_MAX_CALL_DURATION_MS + MAX_DURATION_MARGIN_MS + MINUTE),
      last_event_at: ago(MINUTE),
    });
    const overLimit = await seedCall(t.db.sql, org.organisationId, agentId, {
      call_status: 'IN_PROGRESS',
      dispatched_at: ago(8 * MINUTE),
      answered_at: ago(7 * MINUTE),
      last_event_at: ago(30_000),
      max_duration_ms: 5 * MINUTE,
    });
    const healthy = await seedCall(t.db.sql, org.organisationId, agentId, {
      call_status: 'IN_PROGRESS',
      dispatched_at: ago(20 * MINUTE),
      answered_at: ago(19 * MINUTE),
      last_event_at: ago(MINUTE),
    });
    const ended = await seedCall(t.db.sql, org.organisationId, agentId, {
      call_status: 'COMPLETED',
      dispatched_at: ago(5 * 60 * MINUTE),
      ended_at: ago(4 * 60 * MINUTE),
    });

    const control = t.bus.subscribe(subjects.callControl(silent));
    const heard = (async () => {
      for await (const message of control) return callCodecs.control.decode(message.data);
    })();

    // Two control planes sweeping at once finish each call once.
    const sweepers = [new CallSweeper(t.db.sql, t.bus), new CallSweeper(t.db.sql, t.bus)];
    const passes = await Promise.all(sweepers.map((s) => s.runOnce()));
    expect(passes.flat().sort()).toEqual([silent, neverAnswered, overLimit].sort());
    expect(await sweepers[0]!.runOnce()).toEqual([]);
    expect(await heard).toEqual({ type: 'end', reason: 'finalised_by_control_plane' });
    control.unsubscribe();

    const silentCall = await record(silent);
    expect(silentCall).toMatchObject({
      callStatus: 'COMPLETED',
      callOutcome: 'completed',
      metaData: { endReason: 'engine_silent' },
      analysisStatus: 'pending',
    });
    // It ended when the engine was last heard from: talk time runs from the answer to then.
    expect(Date.parse(silentCall.endedAt)).toBe(silentSince.getTime());
    expect(silentCall.callDuration).toBe(3 * MINUTE);

    expect(await record(neverAnswered)).toMatchObject({
      callStatus: 'FAILED',
      callOutcome: 'failed',
      metaData: { endReason: 'max_duration_exceeded' },
    });
    const over = await record(overLimit);
    expect(over).toMatchObject({ callStatus: 'COMPLETED', metaData: { endReason: 'max_duration_exceeded' } });
    expect(over.callDuration).toBeGreaterThanOrEqual(7 * MINUTE - 1_000);
    expect((await record(healthy)).callStatus).toBe('IN_PROGRESS');
    expect((await record(ended)).metaData).toEqual({});
    const jobs = await t.db
      .sql`select call_id from call_analysis_jobs where call_id in ${t.db.sql([silent, neverAnswered, overLimit, healthy])}`;
    expect(jobs).toHaveLength(3);
  });

  it('runs on its own timer once started', async () => {
    const lost = await seedCall(t.db.sql, org.organisationId, agentId, {
      call_status: 'INITIATED',
      dispatched_at: ago(ENGINE_SILENCE_MS + MINUTE),
      last_event_at: ago(ENGINE_SILENCE_MS + MINUTE),
    });
    const sweeper = new CallSweeper(t.db.sql, t.bus, () => {}, { intervalMs: 20 }).start();
    const until = Date.now() + 5_000;
    while ((await record(lost)).callStatus !== 'FAILED' && Date.now() < until)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await sweeper.stop();
    expect((await record(lost)).callStatus).toBe('FAILED');
  });
});
