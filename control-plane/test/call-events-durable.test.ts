/**
 * The engines' call events are durable: with NATS they wait in a JetStream stream for a control plane to write them,
 * so a restart, a deploy or a database outage loses none, and several control-plane instances write each one once.
 * (call-events.test.ts covers what each event does to the record.)
 */
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { namespacedBus, type Bus } from '@parley/engine/bus';
import { callCodecs, subjects, type CallEvent } from '@parley/engine/protocol';
import { CallEventPersister, type PersisterLog } from '../src/calls/events/call-event-persister.ts';
import { eventKey } from '../src/calls/repository/call-event-store.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { createTestBus } from './support/bus.ts';
import { seedAgent, seedCall, seedOrganisation, type SeededOrganisation } from './support/seed.ts';

const withNats = Boolean(process.env.NATS_URL);
/** Longest wait for what should take a second or two (a redelivery after a nak's delay included). */
const WAIT_MS = 15_000;

let t: TestApp;
let org: SeededOrganisation;
let agentId: string;
/** A bus namespace of this file's own, so other files' control planes never take these events. */
let namespace: string;
/** Buses of further "processes" (engines, control-plane instances), closed after the file. */
const buses: Bus[] = [];
const persisters: CallEventPersister[] = [];

/** Another process's bus in this file's namespace: its own NATS connection, or the one in-process bus. */
async function processBus(): Promise<Bus> {
  if (!withNats) return t.bus;
  const bus = namespacedBus(await createTestBus('parley-durable-test'), namespace);
  buses.push(bus);
  return bus;
}

function startPersister(
  bus: Bus,
  log?: PersisterLog,
  onApplied?: (callId: string, event: CallEvent) => void,
): CallEventPersister {
  const persister = new CallEventPersister(t.db.sql, log, { onApplied }).listen(bus);
  persisters.push(persister);
  return persister;
}

beforeAll(async () => {
  namespace = `test.${randomBytes(6).toString('hex')}`;
  const bus = await createTestBus();
  t = await startTestApp({ bus: withNats ? namespacedBus(bus, namespace) : bus });
  org = await seedOrganisation(t.db.sql, 'Durable');
  agentId = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
});
// Each test's control planes stop with it, so the next test's events reach only its own.
afterEach(async () => {
  for (const persister of persisters.splice(0)) await persister.close();
});
afterAll(async () => {
  await t?.close();
  // Closed together: every view of the namespace still reaches the server to remove the stream.
  await Promise.all([...buses, ...(t ? [t.bus] : [])].map((bus) => bus.close()));
});

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = WAIT_MS): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const publish = (bus: Bus, callId: string, event: CallEvent) =>
  bus.publish(subjects.callEvents(callId), callCodecs.event.encode(event));
const eventCount = async (callId: string) =>
  (await t.db.sql<{ n: number }[]>`select count(*)::int as n from call_events where call_id = ${callId}`)[0]!.n;
const transcriptCount = async (callId: string) =>
  (await t.db.sql<{ n: number }[]>`select count(*)::int as n from call_transcripts where call_id = ${callId}`)[0]!.n;
const callRow = async (callId: string) =>
  (
    await t.db.sql<
      { call_status: string; ended_at: Date | null }[]
    >`select call_status, ended_at from call_records where id = ${callId}`
  )[0]!;

/** A short call as an engine tells it: answered, three transcript lines, the end. */
function conversation(): CallEvent[] {
  return [
    { type: 'state', state: 'greeting', atMs: 500 },
    { type: 'transcript', speaker: 'assistant', text: 'Hello, this is the clinic.', startMs: 600, endMs: 2_000 },
    { type: 'transcript', speaker: 'user', text: 'I need to move my appointment.', startMs: 2_500, endMs: 4_000 },
    { type: 'transcript', speaker: 'assistant', text: 'Thursday at ten works.', startMs: 4_500, endMs: 6_000 },
    { type: 'ended', reason: 'caller_hangup', outcome: 'completed', durationMs: 7_000, latency: { turns: [] } },
  ];
}

describe.runIf(withNats)('call events while no control plane is running', () => {
  it('keeps what the engine published during a restart and writes it once a persister starts again', async () => {
    const engine = await processBus();
    // A control plane that ran once, then stopped (a deploy): its stream and durable consumer stay on the server.
    const before = startPersister(await processBus());
    await before.ready();
    await before.close();

    const callId = await seedCall(t.db.sql, org.organisationId, agentId, {
      call_status: 'RINGING',
      dispatched_at: new Date(),
    });
    const events = conversation();
    for (const event of events) publish(engine, callId, event);
    await engine.flush();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await eventCount(callId)).toBe(0);

    startPersister(await processBus());
    expect(
      await eventually(
        () => eventCount(callId),
        (n) => n === events.length,
      ),
    ).toBe(events.length);
    expect(await transcriptCount(callId)).toBe(3);
    expect(await callRow(callId)).toMatchObject({ call_status: 'COMPLETED', ended_at: expect.any(Date) });
  });
});

describe('call events when the database fails', () => {
  it('delivers an event again after a failed write instead of dropping it, and writes it once the database is back', async () => {
    const warnings: { message: string; detail: { deliveryCount?: number; callId?: string } }[] = [];
    const persister = startPersister(await processBus(), (level, message, detail) => {
      if (level !== 'info') warnings.push({ message, detail });
    });
    await persister.ready();
    const callId = await seedCall(t.db.sql, org.organisationId, agentId, {
      call_status: 'IN_PROGRESS',
      answered_at: new Date(),
    });
    const line: CallEvent = { type: 'transcript', speaker: 'user', text: 'Can you hear me?', startMs: 100, endMs: 900 };

    // The database loses the table every event is recorded in: each write fails until it is back.
    await t.db.sql`alter table call_events rename to call_events_offline`;
    try {
      publish(t.bus, callId, line);
      const failed = await eventually(
        async () => warnings.filter((w) => w.detail.callId === callId),
        (w) => w.length >= 1,
      );
      expect(failed[0]).toMatchObject({
        message: expect.stringMatching(/delivered again/),
        detail: { deliveryCount: 1 },
      });
    } finally {
      await t.db.sql`alter table call_events_offline rename to call_events`;
    }
    expect(
      await eventually(
        () => eventCount(callId),
        (n) => n === 1,
      ),
    ).toBe(1);
    await persister.settled();
    expect(await transcriptCount(callId)).toBe(1);
    expect(warnings.filter((w) => w.detail.callId === callId).every((w) => !/lost/.test(w.message))).toBe(true);
  });
});

describe('call events with two control-plane instances', () => {
  it('writes each event once, whichever instance takes it', async () => {
    const applied: string[] = [];
    const count = (callId: string, event: CallEvent) => applied.push(`${callId}:${eventKey(event)}`);
    const instances = [
      startPersister(await processBus(), undefined, count),
      startPersister(await processBus(), undefined, count),
    ];
    await Promise.all(instances.map((persister) => persister.ready()));
    const engine = await processBus();

    const calls = await Promise.all(
      Array.from({ length: 8 }, () =>
        seedCall(t.db.sql, org.organisationId, agentId, { call_status: 'RINGING', dispatched_at: new Date() }),
      ),
    );
    const events = conversation();
    for (const event of events) for (const callId of calls) publish(engine, callId, event);
    // The engine publishing an end twice (a retry of its own) is one event too.
    publish(engine, calls[0]!, events.at(-1)!);

    const total = calls.length * events.length;
    await eventually(
      async () => applied.length,
      (n) => n >= total,
    );
    for (const persister of instances) await persister.settled();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(applied).toHaveLength(total);
    expect(new Set(applied).size).toBe(total);
    for (const callId of calls) {
      expect(await eventCount(callId)).toBe(events.length);
      expect(await transcriptCount(callId)).toBe(3);
    }
  });
});
