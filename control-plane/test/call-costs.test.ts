/**
 * What one phone call costs the shared infrastructure (docs/scaling.md is built on these figures): bus messages and
 * bytes per second of call, by kind of subject, and Postgres row writes per call, by table. Calls run through the
 * phone-call rig (the carrier simulator's carrier-a phone, the engine's media server, flite, pocketsphinx and the
 * fake LLM as workers, the control plane and its event persister on real Postgres): each call greets, hears one
 * sentence, answers it, and is hung up by the caller.
 *
 * Counted: every message published under the rig's bus namespace (a tap on `v1.>`: payload bytes, each message once
 * as published; NATS adds ~60–100 bytes of protocol per message and JetStream its acks and pulls, not seen here),
 * and Postgres's own per-table tuple counters (pg_stat_user_tables inserts + updates + deletes) of the rig's schema,
 * read once the backends have flushed them. The figures are printed; the bounds asserted are loose ceilings, so a
 * change that multiplies a call's traffic or writes fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUR_NUMBERS, PhoneCallRig, waitFor } from './support/phone-call-rig.ts';

const CALLS = 3;
/** Postgres backends flush their table counters when idle, at the latest after 10 s (PGSTAT_IDLE_INTERVAL). */
const STATS_FLUSH_MS = 11_500;

let rig: PhoneCallRig;

beforeAll(async () => {
  rig = await PhoneCallRig.start();
}, 120_000);

afterAll(async () => {
  await rig?.close();
}, 60_000);

/** The kind of traffic a subject carries, for the breakdown. */
function kindOf(subject: string): string {
  const parts = subject.split('.');
  if (parts[1] === 'call') return `call.${parts.at(-1)}`;
  if (parts[1] === 'worker') return 'worker heartbeats';
  if (['stt', 'tts', 'llm'].includes(parts[1]!))
    return parts.length === 4 ? `${parts[1]}.${parts[3]}` : `${parts[1]}.open`;
  return parts.slice(1, 3).join('.');
}

async function tableWrites(): Promise<Map<string, number>> {
  const rows = await rig.db.sql<{ relname: string; writes: string }[]>`
    select relname, (n_tup_ins + n_tup_upd + n_tup_del)::text as writes
      from pg_stat_user_tables where schemaname = ${rig.db.schema}`;
  return new Map(rows.map((r) => [r.relname, Number(r.writes)]));
}

describe('the cost of a phone call', () => {
  it('in bus traffic and Postgres writes', async () => {
    const agentId = await rig.createAgent(OUR_NUMBERS['carrier-a']);
    const REPLY = 'Done. You are booked for Tuesday at ten in the morning.';
    const sentence = await rig.fliteWav('please book me for tuesday morning');
    await new Promise((resolve) => setTimeout(resolve, STATS_FLUSH_MS));
    const writesBefore = await tableWrites();

    const traffic = new Map<string, { messages: number; bytes: number }>();
    const tap = rig.bus.subscribe('v1.>');
    void (async () => {
      for await (const message of tap) {
        const kind = kindOf(message.subject);
        const entry = traffic.get(kind) ?? { messages: 0, bytes: 0 };
        entry.messages += 1;
        entry.bytes += message.data.byteLength;
        traffic.set(kind, entry);
      }
    })();

    let callMs = 0;
    const started = performance.now();
    for (let i = 0; i < CALLS; i++) {
      rig.llm.fake.chat.enqueue({ tokens: REPLY.split(/(?<= )/) });
      const res = await rig.place({ agentId, participantNumber: rig.nextNumber(OUR_NUMBERS['carrier-a']) });
      expect(res.statusCode, res.body).toBe(201);
      const callId = res.json().data.sessionId as string;
      const call = await rig.sim.nextCall();
      const stream = await call.stream;
      const watch = rig.watchEvents(callId);
      await waitFor(
        () => watch.events,
        (e) => e.some((x) => x.type === 'state' && x.state === 'listening'),
        'the greeting',
      );
      await stream.sayWav(sentence);
      await stream.pause(1_000);
      await waitFor(
        () => watch.events,
        (e) => e.some((x) => x.type === 'transcript' && x.speaker === 'assistant' && x.text === REPLY),
        'the reply',
        30_000,
      );
      // The reply's line is written once the caller has heard it: the call has had its turn; the caller hangs up.
      await call.hangup();
      const row = await waitFor(
        () => rig.record(callId),
        (r) => r.ended_at !== null && r.latency !== null,
        'the record to end',
      );
      watch.stop();
      expect(row.call_status).toBe('COMPLETED');
      callMs += row.call_duration as number;
    }
    const wallMs = performance.now() - started;
    await rig.persister.settled();
    tap.unsubscribe();
    await new Promise((resolve) => setTimeout(resolve, STATS_FLUSH_MS));
    const writesAfter = await tableWrites();

    // Heartbeats are per worker, not per call: reported apart.
    const heartbeats = traffic.get('worker heartbeats') ?? { messages: 0, bytes: 0 };
    traffic.delete('worker heartbeats');
    const callSeconds = callMs / 1000;
    const total = [...traffic.values()].reduce((a, b) => ({
      messages: a.messages + b.messages,
      bytes: a.bytes + b.bytes,
    }));
    const writes = [...writesAfter]
      .map(([table, n]) => [table, n - (writesBefore.get(table) ?? 0)] as const)
      .filter(([, n]) => n > 0);
    const writesTotal = writes.reduce((sum, [, n]) => sum + n, 0);
    const lines = [
      `${CALLS} calls, ${callSeconds.toFixed(1)} s of call in ${(wallMs / 1000).toFixed(1)} s`,
      `bus per second of call: ${(total.messages / callSeconds).toFixed(1)} messages, ${(total.bytes / callSeconds / 1024).toFixed(1)} KiB`,
      ...[...traffic]
        .sort((a, b) => b[1].bytes - a[1].bytes)
        .map(
          ([kind, t]) =>
            `  ${kind}: ${(t.messages / callSeconds).toFixed(2)} msg/s, ${(t.bytes / callSeconds / 1024).toFixed(2)} KiB/s, ${(t.messages / CALLS).toFixed(1)} per call`,
        ),
      `worker heartbeats (per worker, not per call): ${(heartbeats.messages / (wallMs / 1000)).toFixed(2)} msg/s across the rig's workers`,
      `Postgres row writes per call: ${(writesTotal / CALLS).toFixed(1)}`,
      ...writes.sort((a, b) => b[1] - a[1]).map(([table, n]) => `  ${table}: ${(n / CALLS).toFixed(1)}`),
    ];
    process.stdout.write(`\n${lines.join('\n')}\n`);

    // Floors and ceilings around the figures measured on 2026-11-28 (docs/scaling.md: 17–23 messages and 19–25 KiB a
    // second of call, ~46 row writes a call): a call that stops reaching the bus or the database, or one whose traffic
    // or writes multiply, fails here; noise does not.
    expect(traffic.get('stt.in')?.messages ?? 0).toBeGreaterThan(0);
    expect(traffic.get('call.event')?.messages ?? 0).toBeGreaterThanOrEqual(CALLS * 3);
    expect(total.messages / callSeconds).toBeGreaterThan(4);
    expect(total.messages / callSeconds).toBeLessThan(100);
    expect(total.bytes / callSeconds).toBeLessThan(100 * 1024);
    expect(writesTotal / CALLS).toBeGreaterThan(10);
    expect(writesTotal / CALLS).toBeLessThan(200);
  }, 240_000);
});
