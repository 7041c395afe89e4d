/**
 * The engine watch (docs/architecture.md §18) on its own: heartbeats published as engines publish them, calls seeded
 * as the engines held them. A silent engine's calls are finished FAILED / engine_lost, ended when it was last heard,
 * billed once even with two control planes watching; an engine that left after draining, an engine never heard and
 * a live engine are left alone. engine-faults.test.ts does the same with real engine processes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineCodecs, sipCodecs, subjects, type EngineHeartbeat, type SipCallControl } from '@parley/engine/protocol';
import { EngineWatch } from '../src/calls/jobs/engine-watch.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedAgent, seedCall, seedOrganisation, seedWallet, type SeededOrganisation } from './support/seed.ts';
import { createIsolatedBus } from './support/workers.ts';
import { createSipConfiguration, createTrunk } from './support/sip.ts';

/** Short enough for a test, long enough that a live engine beating every 100 ms is never taken for lost. */
const LOST_AFTER_MS = 600;

let t: TestApp;
let org: SeededOrganisation;
let agentId: string;

beforeAll(async () => {
  t = await startTestApp({ bus: await createIsolatedBus() });
  org = await seedOrganisation(t.db.sql, 'Watch');
  await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 5_000 });
  agentId = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
});
afterAll(async () => {
  await t?.close();
  await t?.bus.close();
});

const ago = (ms: number) => new Date(Date.now() - ms);

function beat(state: EngineHeartbeat): void {
  t.bus.publish(subjects.engineHeartbeat(state.engineId), engineCodecs.heartbeat.encode(state));
}

/** Beats for `engineId` every 100 ms until stopped. */
function beating(state: EngineHeartbeat): () => void {
  beat(state);
  const timer = setInterval(() => beat(state), 100);
  return () => clearInterval(timer);
}

async function row(id: string) {
  const [call] = await t.db.sql<
    { call_status: string; ended_at: Date | null; answered_at: Date | null; meta_data: { endReason?: string } }[]
  >`select call_status, ended_at, answered_at, meta_data from call_records where id = ${id}`;
  return call!;
}

async function billing(id: string): Promise<{ usage: number; debits: number }> {
  const [usage] = await t.db.sql<{ n: number }[]>`select count(*)::int as n from usage_records
    where voice_session_id = ${id} and usage_type = 'VOICE_CALL'`;
  const [debits] = await t.db.sql<{ n: number }[]>`select count(*)::int as n from ledger_transactions
    where reference_type = 'VOICE_CALL' and reference_id = ${id}`;
  return { usage: usage!.n, debits: debits!.n };
}

describe('the engine watch', () => {
  it("finishes a silent engine's calls once, with two control planes watching, and leaves the others alone", async () => {
    const suffix = Math.random().toString(16).slice(2, 10);
    const id = (name: string) => `engine-${name}-${suffix}`;
    const [lost, live, drained, unheard] = [id('lost'), id('live'), id('drained'), id('unheard')] as const;
    const seed = (engineId: string, answered: boolean) =>
      seedCall(t.db.sql, org.organisationId, agentId, {
        call_status: answered ? 'IN_PROGRESS' : 'INITIATED',
        engine_id: engineId,
        dispatched_at: ago(90_000),
        answered_at: answered ? ago(60_000) : null,
        last_event_at: ago(1_000),
      });
    const talking = await seed(lost, true);
    // A call over a SIP trunk: the gateway holding its leg is told to hang up.
    const trunk = await createTrunk(t, org.key);
    const sipConfig = await createSipConfiguration(t, org.key, {
      sipTrunkId: trunk.id,
      type: 'OUTBOUND',
      phoneNumber: `+1628${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`,
    });
    const overSip = await seed(lost, true);
    await t.db.sql`update call_records set sip_configuration_id = ${sipConfig.id} where id = ${overSip}`;
    const sipOrders: SipCallControl[] = [];
    const sipControl = t.bus.subscribe(subjects.sipCallControl(overSip));
    void (async () => {
      for await (const m of sipControl) sipOrders.push(sipCodecs.control.decode(m.data));
    })();
    const ringing = await seed(lost, false);
    const onLive = await seed(live, true);
    const onDrained = await seed(drained, true);
    const onUnheard = await seed(unheard, true);

    const watches = [0, 1].map(
      () => new EngineWatch(t.db.sql, t.bus, () => {}, { lostAfterMs: LOST_AFTER_MS, intervalMs: 600_000 }),
    );
    for (const watch of watches) watch.start();
    const stopLive = beating({ engineId: live, calls: [onLive], draining: false });
    try {
      const stopLost = beating({ engineId: lost, calls: [talking, ringing, overSip], draining: false });
      beat({ engineId: drained, calls: [], draining: true });
      await expect.poll(() => watches.every((w) => w.engines.length >= 3), { timeout: 3_000 }).toBe(true);
      stopLost();
      const lastHeard = Date.now();
      await new Promise((resolve) => setTimeout(resolve, LOST_AFTER_MS + 200));

      // Both instances pass at once: each call is finished by one of them.
      const finished = (await Promise.all(watches.map((w) => w.runOnce()))).flat();
      expect(finished.toSorted()).toEqual([talking, ringing, overSip].toSorted());
      await expect.poll(() => sipOrders, { timeout: 3_000 }).toEqual([{ type: 'hangup', reason: 'engine_lost' }]);

      const answered = await row(talking);
      expect(answered).toMatchObject({ call_status: 'FAILED', meta_data: { endReason: 'engine_lost' } });
      // Ended when the engine was last heard, not when the watch noticed.
      expect(answered.ended_at!.getTime()).toBeLessThanOrEqual(lastHeard + 50);
      expect(answered.ended_at!.getTime()).toBeGreaterThan(lastHeard - 500);
      expect(await billing(talking)).toEqual({ usage: 1, debits: 1 });
      // Never answered: failed, nothing billed.
      expect(await row(ringing)).toMatchObject({ call_status: 'FAILED', meta_data: { endReason: 'engine_lost' } });
      expect(await billing(ringing)).toEqual({ usage: 0, debits: 0 });

      // A second pass finds nothing more; the live engine, the drained one and the unheard one keep their calls.
      expect((await Promise.all(watches.map((w) => w.runOnce()))).flat()).toEqual([]);
      for (const id of [onLive, onDrained, onUnheard]) expect((await row(id)).ended_at).toBeNull();
    } finally {
      sipControl.unsubscribe();
      stopLive();
      for (const watch of watches) await watch.stop();
    }
  });
});
