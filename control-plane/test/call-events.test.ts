/**
 * The event persister: what the engine publishes about a call (`v1.call.<id>.event`) is written to the call record,
 * its transcript and its actions — once, however often an event arrives.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callCodecs, subjects, type CallEvent } from '@parley/engine/protocol';
import { CallEventPersister } from '../src/calls/events/call-event-persister.ts';
import { eventKey } from '../src/calls/repository/call-event-store.ts';
import { finishCall } from '../src/calls/repository/call-repository.ts';
import { newId } from '../src/db/ids.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedAgent, seedCall, seedOrganisation, type SeededOrganisation } from './support/seed.ts';
import { createIsolatedBus } from './support/workers.ts';

let t: TestApp;
let org: SeededOrganisation;
let agentId: string;
let persisters: CallEventPersister[];

beforeAll(async () => {
  // A bus namespace of this file's own: on a shared NATS server, other files' listeners never take these events.
  t = await startTestApp({ bus: await createIsolatedBus() });
  org = await seedOrganisation(t.db.sql, 'Events');
  agentId = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
  // Two control-plane instances in the same queue group: each event reaches one of them.
  persisters = [new CallEventPersister(t.db.sql).listen(t.bus), new CallEventPersister(t.db.sql).listen(t.bus)];
});
afterAll(async () => {
  for (const persister of persisters ?? []) await persister.close();
  await t?.close();
  await t?.bus.close();
});

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const publish = (callId: string, event: CallEvent) =>
  t.bus.publish(subjects.callEvents(callId), callCodecs.event.encode(event));
const eventCount = async (callId: string) =>
  (await t.db.sql<{ n: number }[]>`select count(*)::int as n from call_events where call_id = ${callId}`)[0]!.n;
const record = async (callId: string) =>
  (await t.call(org.key, { method: 'GET', url: `/api/v1/voice-sessions/${callId}` })).json().data;

describe('call events from the bus', () => {
  it('writes status, transcript in spoken order, actions, the flow result and the end; a redelivered event changes nothing', async () => {
    const callId = await seedCall(t.db.sql, org.organisationId, agentId, {
      call_status: 'INITIATED',
      dispatched_at: new Date(),
    });
    const userLine: CallEvent = {
      type: 'transcript',
      speaker: 'user',
      text: 'I would like a table for two.',
      startMs: 4_100,
      endMs: 6_000,
    };
    const events: CallEvent[] = [
      { type: 'state', state: 'connecting', atMs: 0 },
      { type: 'state', state: 'greeting', atMs: 900 },
      { type: 'transcript', speaker: 'assistant', text: 'Hello, Luigi’s here.', startMs: 1_000, endMs: 1_000 },
      // Spoken after the user's line, published before it.
      {
        type: 'transcript',
        speaker: 'assistant',
        text: 'For what time?',
        startMs: 7_000,
        endMs: 7_000,
        interrupted: true,
      },
      userLine,
      userLine,
      { type: 'dtmf', digit: '2', atMs: 9_500.25 },
      {
        type: 'tool_call',
        name: 'book_table',
        arguments: '{"people":2}',
        ok: true,
        result: 'booked',
        durationMs: 420,
        atMs: 8_000,
      },
      {
        type: 'tool_call',
        name: 'send_sms',
        arguments: '{}',
        ok: false,
        result: 'timeout',
        durationMs: 5_000,
        atMs: 9_000,
      },
      { type: 'state', state: 'connecting', atMs: 9_600 },
      {
        type: 'result',
        source: 'flow',
        outcomeKey: 'booked',
        outcomeLabel: 'Booked',
        captured: { people: 2 },
        flowPath: ['greet', 'ask_people', 'book'],
      },
      {
        type: 'ended',
        reason: 'flow_ended',
        outcome: 'completed',
        durationMs: 12_345,
        latency: { greetingMs: 310, turns: [{ turn: 1, endpointingMs: 500, endToEndMs: 900 }] },
      },
    ];
    for (const event of events) publish(callId, event);
    publish(callId, events.at(-1)!); // the end, redelivered
    const distinct = new Set(events.map(eventKey)).size;
    await eventually(
      () => eventCount(callId),
      (n) => n >= distinct,
    );
    for (const persister of persisters) await persister.settled();
    expect(await eventCount(callId)).toBe(distinct);

    const call = await record(callId);
    expect(call).toMatchObject({
      callStatus: 'COMPLETED',
      callOutcome: 'completed',
      callDuration: 12_345,
      metaData: { endReason: 'flow_ended' },
      latency: { greetingMs: 310, turns: [{ turn: 1, endpointingMs: 500, endToEndMs: 900 }] },
      agentResult: {
        outcomeKey: 'booked',
        outcomeLabel: 'Booked',
        captured: { people: 2 },
        resultSource: 'flow',
        flowPath: ['greet', 'ask_people', 'book'],
      },
      analysisStatus: 'pending',
      actions: {
        tracking: '2 tool calls (1 failed): book_table, send_sms; keys pressed: 2',
        items: [
          { type: 'tool_call', name: 'book_table', ok: true, durationMs: 420, atMs: 8_000 },
          { type: 'tool_call', name: 'send_sms', ok: false, durationMs: 5_000, atMs: 9_000 },
          { type: 'dtmf', digit: '2', atMs: 9_500 },
        ],
      },
    });
    expect(call.answeredAt).not.toBeNull();
    expect(call.endedAt).not.toBeNull();

    const lines = await t.call(org.key, {
      method: 'GET',
      url: `/api/v1/call-history/sessions/room/${call.roomName}/transcripts`,
    });
    expect(lines.statusCode, lines.body).toBe(200);
    expect(
      lines
        .json()
        .data.transcripts.map((l: { speaker: string; text: string; interrupted: boolean }) => [
          l.speaker,
          l.text,
          l.interrupted,
        ]),
    ).toEqual([
      ['assistant', 'Hello, Luigi’s here.', false],
      ['user', 'I would like a table for two.', false],
      ['assistant', 'For what time?', true],
    ]);
    const jobs = await t.db.sql`select status from call_analysis_jobs where call_id = ${callId}`;
    expect(jobs).toHaveLength(1);
  });

  it('applies an event once when it is persisted twice, and ignores events of unknown calls', async () => {
    const callId = await seedCall(t.db.sql, org.organisationId, agentId, {
      call_status: 'IN_PROGRESS',
      answered_at: new Date(),
    });
    const line: CallEvent = { type: 'transcript', speaker: 'user', text: 'Yes please.', startMs: 100, endMs: 900 };
    const persister = persisters[0]!;
    expect(await persister.persist(callId, line)).toBe('applied');
    expect(await persister.persist(callId, line)).toBe('duplicate');
    expect(await persister.persist(callId, { ...line, startMs: 2_000, endMs: 2_500 })).toBe('applied');
    const rows = await t.db.sql`select text from call_transcripts where call_id = ${callId}`;
    expect(rows).toHaveLength(2);
    expect(await persister.persist(newId(), line)).toBe('unknown_call');
    expect(await persister.persist('not-a-call', line)).toBe('unknown_call');
  });

  it("keeps the end route's endedAt and reason, while the engine's end gives the outcome and duration", async () => {
    const room = `ended-${newId()}`;
    const callId = await seedCall(t.db.sql, org.organisationId, agentId, {
      room_name: room,
      call_status: 'IN_PROGRESS',
      answered_at: new Date(),
    });
    const ended = await t.call(org.key, {
      method: 'POST',
      url: `/api/v1/voice-sessions/room/${room}/end`,
      payload: { reason: 'supervisor' },
    });
    expect(ended.statusCode).toBe(200);
    await persisters[1]!.persist(callId, {
      type: 'ended',
      reason: 'operator',
      outcome: 'completed',
      durationMs: 61_000,
      latency: { turns: [] },
    });
    const call = await record(callId);
    expect(call).toMatchObject({
      callStatus: 'COMPLETED',
      callOutcome: 'completed',
      callDuration: 61_000,
      metaData: { endReason: 'supervisor' },
      endedAt: ended.json().data.endedAt,
    });
    // A state event after the end never reopens the call.
    await persisters[1]!.persist(callId, { type: 'state', state: 'listening', atMs: 62_000 });
    expect((await record(callId)).callStatus).toBe('COMPLETED');
  });

  it('records a call whose agent has no language model as a completed call that says why, not a failure', async () => {
    // The engine greets, says it has no language model, and hangs up: the call ended as designed.
    const callId = await seedCall(t.db.sql, org.organisationId, agentId, {
      call_status: 'IN_PROGRESS',
      answered_at: new Date(),
    });
    await persisters[0]!.persist(callId, {
      type: 'ended',
      reason: 'no_language_model',
      outcome: 'completed',
      durationMs: 9_500,
      latency: { turns: [] },
    });
    expect(await record(callId)).toMatchObject({
      callStatus: 'COMPLETED',
      callOutcome: 'completed',
      metaData: { endReason: 'no_language_model' },
    });
    const [row] = await t.db.sql<
      { outcome_class: string }[]
    >`select outcome_class from call_records where id = ${callId}`;
    expect(row!.outcome_class).toBe('answered');
  });

  it("never deadlocks when the engine's end and a carrier's end of the same call arrive together", async () => {
    // Both lock the call's row and queue its analysis job (whose foreign key takes KEY SHARE on that row): the carrier's
    // end must hold the row lock through the job's insert, or Postgres may kill one of the two as a deadlock. The window
    // is a few milliseconds wide, so this stresses it rather than forcing it.
    // The carrier's end starts first; the engine's follows at staggered moments, so some land inside its statements.
    const ids = await Promise.all(
      Array.from({ length: 40 }, () =>
        seedCall(t.db.sql, org.organisationId, agentId, { call_status: 'IN_PROGRESS', answered_at: new Date() }),
      ),
    );
    const results = await Promise.allSettled(
      ids.flatMap((callId, i) => [
        finishCall(t.db.sql, callId, { outcome: 'completed', reason: 'carrier_completed' }),
        new Promise((resolve) => setTimeout(resolve, (i % 10) * 0.5)).then(() =>
          persisters[0]!.persist(callId, {
            type: 'ended',
            reason: 'caller_hangup',
            outcome: 'completed',
            durationMs: 5_000,
            latency: { turns: [] },
          }),
        ),
      ]),
    );
    expect(
      results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason)),
    ).toEqual([]);
    const jobs = await t.db.sql<
      { n: number }[]
    >`select count(*)::int as n from call_analysis_jobs where call_id in ${t.db.sql(ids)}`;
    expect(jobs[0]!.n).toBe(ids.length);
    const ended = await t.db.sql<
      { n: number }[]
    >`select count(*)::int as n from call_records where id in ${t.db.sql(ids)} and call_status = 'COMPLETED' and ended_at is not null`;
    expect(ended[0]!.n).toBe(ids.length);
  });

  it("takes the engine's reason over a carrier's bare completion that was stored first, and keeps any other", async () => {
    const [hungUp, swept] = await Promise.all([
      seedCall(t.db.sql, org.organisationId, agentId, { call_status: 'IN_PROGRESS', answered_at: new Date() }),
      seedCall(t.db.sql, org.organisationId, agentId, { call_status: 'IN_PROGRESS', answered_at: new Date() }),
    ]);
    // The engine hung its stream up, the carrier reported the call completed, then the engine's `ended` arrived.
    await finishCall(t.db.sql, hungUp, { outcome: 'completed', reason: 'carrier_completed' });
    await finishCall(t.db.sql, swept, { outcome: 'completed', reason: 'engine_silent' });
    const ended: CallEvent = {
      type: 'ended',
      reason: 'stt_unavailable',
      outcome: 'failed',
      durationMs: 9_000,
      latency: { turns: [] },
    };
    await persisters[0]!.persist(hungUp, ended);
    await persisters[0]!.persist(swept, ended);
    const rows = await t.db.sql<{ id: string; call_status: string; reason: string }[]>`
      select id, call_status, meta_data ->> 'endReason' as reason from call_records where id in ${t.db.sql([hungUp, swept])}`;
    const byId = Object.fromEntries(rows.map((r) => [r.id, r]));
    expect(byId[hungUp]).toMatchObject({ call_status: 'FAILED', reason: 'stt_unavailable' });
    expect(byId[swept]).toMatchObject({ call_status: 'FAILED', reason: 'engine_silent' });
  });

  it('records a failed call as FAILED', async () => {
    const callId = await seedCall(t.db.sql, org.organisationId, agentId, { call_status: 'INITIATED' });
    await persisters[0]!.persist(callId, {
      type: 'ended',
      reason: 'media_never_connected',
      outcome: 'no_answer',
      durationMs: 0,
      latency: { turns: [] },
    });
    expect(await record(callId)).toMatchObject({ callStatus: 'COMPLETED', callOutcome: 'no_answer', answeredAt: null });
    const failedId = await seedCall(t.db.sql, org.organisationId, agentId, { call_status: 'IN_PROGRESS' });
    await persisters[0]!.persist(failedId, {
      type: 'ended',
      reason: 'error',
      outcome: 'failed',
      durationMs: 3_000,
      latency: { turns: [] },
    });
    expect((await record(failedId)).callStatus).toBe('FAILED');
  });
});
