/**
 * Enforcement (issue 14, item 3): every way a call is launched refuses with 402, saying why, when the organisation
 * may not call (below the minimum balance, suspended, unpaid usage), and two control planes on one database never
 * let an organisation have more calls live than its concurrent-call limit. Real roles on the test bus (the NATS of
 * NATS_URL when set): an engine with offline speech workers takes the calls that are let through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngineRole, startSttWorkerRole, type EngineRole, type WorkerRoleHandle } from '@parley/engine';
import type { Bus } from '@parley/engine/bus';
import { admitCall, QUEUED_HOLDS_LINE_MS } from '../src/billing/call-admission.ts';
import { CallSweeper } from '../src/calls/jobs/call-sweeper.ts';
import { insertUsage } from '../src/billing/usage-repository.ts';
import { REFUSALS } from '../src/calls/launch/carrier-calls.ts';
import { newId } from '../src/db/ids.ts';
import { ApiError } from '../src/errors.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import {
  seedAgent,
  seedCall,
  seedOrganisation,
  seedPhoneNumber,
  seedWallet,
  updateAgentColumns,
  type SeededOrganisation,
} from './support/seed.ts';
import { createIsolatedBus, OFFLINE_SPEECH, startTestTts } from './support/workers.ts';

/** The limit both control planes are configured with for pay-as-you-go organisations. */
const LIMIT = 2;
const OUR_NUMBER = '+14155550100';
const CALLEE = '+14155550123';

let bus: Bus;
let db: TestDatabase;
let apps: [TestApp, TestApp];
let engine: EngineRole;
const workers: WorkerRoleHandle[] = [];

beforeAll(async () => {
  bus = await createIsolatedBus();
  db = await createTestDatabase();
  // Two control planes built separately on the same database and bus, as two instances behind a load balancer.
  apps = [
    await startTestApp({ db, bus, languageModel: false, defaultConcurrentCalls: LIMIT }),
    await startTestApp({ db, bus, languageModel: false, defaultConcurrentCalls: LIMIT }),
  ];
  workers.push(await startTestTts(bus), await startSttWorkerRole(OFFLINE_SPEECH, bus, () => {}));
  engine = await startEngineRole(
    { ...OFFLINE_SPEECH, vad: 'energy', media: { port: 0, host: '127.0.0.1' } },
    bus,
    () => {},
  );
}, 60_000);

afterAll(async () => {
  await engine?.close();
  for (const worker of workers) await worker.close();
  for (const app of apps ?? []) await app.close();
  await db?.close();
  await bus?.close();
});

interface Caller {
  org: SeededOrganisation;
  agentId: string;
}

/** An organisation with `balanceMinor` in its wallet, an active VOICE agent and a carrier-b number. */
async function caller(balanceMinor: number): Promise<Caller> {
  const org = await seedOrganisation(db.sql, 'Enforced');
  await seedWallet(db.sql, org.organisationId, { balanceMinor });
  const agentId = await seedAgent(db.sql, org.organisationId, 'VOICE');
  await updateAgentColumns(db.sql, agentId, { greeting_message: 'Hello.', calling_number: OUR_NUMBER });
  await seedPhoneNumber(db.sql, org.organisationId, { provider: 'carrier-b', phoneNumber: OUR_NUMBER });
  return { org, agentId };
}

const websocketCall = (c: Caller, app: TestApp = apps[0]) =>
  app.call(c.org.key, {
    method: 'POST',
    url: '/api/v1/voice/session',
    payload: { agentId: c.agentId, callType: 'websocket', participantName: 'Web visitor' },
  });

/** Every launch route, and what each answers when the organisation may not call. */
async function launchRoutes(c: Caller): Promise<{ route: string; status: number; message: string }[]> {
  const earlier = await seedCall(db.sql, c.org.organisationId, c.agentId, {
    phone_number: CALLEE,
    calling_number: OUR_NUMBER,
    call_status: 'COMPLETED',
    ended_at: new Date(),
  });
  const answers = [
    ['POST /voice/session (websocket)', await websocketCall(c)],
    [
      'POST /voice/session (sip)',
      await apps[1].call(c.org.key, {
        method: 'POST',
        url: '/api/v1/voice/session',
        payload: { agentId: c.agentId, callType: 'sip', participantName: 'Callee', participantNumber: CALLEE },
      }),
    ],
    [
      'POST /voice/callback',
      await apps[0].call(c.org.key, {
        method: 'POST',
        url: '/api/v1/voice/callback',
        payload: { roomName: `room-${earlier}` },
      }),
    ],
  ] as const;
  return answers.map(([route, res]) => ({ route, status: res.statusCode, message: res.json().message as string }));
}

/** An inbound call to the organisation's number, answered by its agent: the carrier's answer document. */
async function inbound(c: Caller) {
  await db.sql`update phone_numbers set agent_id = ${c.agentId} where organisation_id = ${c.org.organisationId}`;
  // The carrier webhook's own work once the carrier's signature is checked (routes/webhooks/carrier-voice.ts).
  return apps[0].app.phoneCalls.carrierCalls.answerInbound('carrier-b', c.org.organisationId, {
    from: CALLEE,
    to: OUR_NUMBER,
    callRef: `CA${newId()}`,
  });
}

async function callRecordsOf(organisationId: string): Promise<number> {
  const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from call_records
    where organisation_id = ${organisationId} and call_status <> 'COMPLETED'`;
  return row!.n;
}

describe('402 on every launch route', () => {
  it('below the minimum balance', async () => {
    const c = await caller(99);
    for (const answer of await launchRoutes(c)) {
      expect(answer, answer.route).toMatchObject({
        status: 402,
        message: 'The wallet holds 0.99 USD: at least 1.00 USD is needed. Top up the wallet first',
      });
    }
    expect(await callRecordsOf(c.org.organisationId)).toBe(0);
  });

  it('when the billing account is suspended, whatever the wallet holds', async () => {
    const c = await caller(10_000);
    await db.sql`insert into billing_accounts (organisation_id, is_suspended, suspended_reason)
                 values (${c.org.organisationId}, true, 'chargeback under review')
                 on conflict (organisation_id) do update set is_suspended = true, suspended_reason = 'chargeback under review'`;
    for (const answer of await launchRoutes(c)) {
      expect(answer, answer.route).toMatchObject({
        status: 402,
        message: 'The billing account is suspended: chargeback under review',
      });
    }
    expect(await callRecordsOf(c.org.organisationId)).toBe(0);
  });

  it('while earlier usage is unpaid', async () => {
    const c = await caller(10_000);
    await insertUsage(db.sql, {
      organisationId: c.org.organisationId,
      voiceSessionId: null,
      roomName: null,
      callDirection: 'OUTBOUND',
      usageType: 'VOICE_CALL',
      durationSeconds: 60,
      billedSeconds: 60,
      messageCount: 0,
      rateE4: 50_000,
      totalE4: 50_000,
      currency: 'USD',
      wallet: 'WALLET',
      startTime: null,
      endTime: null,
      idempotencyKey: `test:${newId()}`,
    });
    for (const answer of await launchRoutes(c)) {
      expect(answer, answer.route).toMatchObject({ status: 402, message: expect.stringMatching(/unpaid/) });
    }
  });

  it('an inbound call of an organisation that may not call hears a refusal, and nothing is recorded', async () => {
    const c = await caller(50);
    expect(JSON.stringify(await inbound(c))).toContain(REFUSALS.unfunded);
    expect(await callRecordsOf(c.org.organisationId)).toBe(0);
  });
});

describe('concurrent calls', () => {
  it(`two control planes never let more than ${LIMIT} calls be live at once`, async () => {
    const c = await caller(10_000);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => websocketCall(c, apps[i % 2])));
    const accepted = answers.filter((res) => res.statusCode === 201);
    const refused = answers.filter((res) => res.statusCode === 402);
    expect(accepted.map((res) => res.json().data.status)).toEqual(['initiated', 'initiated']);
    expect(refused).toHaveLength(10);
    for (const res of refused)
      expect(res.json().message).toBe(
        `Plan call limit reached: ${LIMIT} calls are in progress and the pay-as-you-go limit is ${LIMIT} at once. ` +
          'Wait for a call to end, or move to a plan with more concurrent calls',
      );
    // A refused call leaves no record.
    const [live] = await db.sql<{ n: number }[]>`select count(*)::int as n from call_records
      where organisation_id = ${c.org.organisationId} and call_status = 'INITIATED' and ended_at is null`;
    expect(live!.n).toBe(LIMIT);
    expect(await callRecordsOf(c.org.organisationId)).toBe(LIMIT);

    // A call ends: its line is free for the next one, on either instance.
    const ended = await apps[1].call(c.org.key, {
      method: 'POST',
      url: `/api/v1/voice-sessions/room/${accepted[0]!.json().data.roomName}/end`,
    });
    expect(ended.statusCode, ended.body).toBe(200);
    expect((await websocketCall(c, apps[1])).statusCode).toBe(201);
    expect((await websocketCall(c, apps[0])).statusCode).toBe(402);
    // A caller ringing in while every line is taken hears so; nothing is recorded.
    expect(JSON.stringify(await inbound(c))).toContain(REFUSALS.allLinesBusy);
    expect(await callRecordsOf(c.org.organisationId)).toBe(LIMIT);
  }, 30_000);

  it('a scheduled call that comes due while every line is taken is not placed, and says why', async () => {
    const c = await caller(10_000);
    const scheduled = await apps[0].call(c.org.key, {
      method: 'POST',
      url: '/api/v1/voice/session',
      payload: {
        agentId: c.agentId,
        callType: 'sip',
        participantName: 'Later',
        participantNumber: CALLEE,
        callTime: new Date(Date.now() + 3_600_000).toISOString(),
      },
    });
    expect(scheduled.statusCode, scheduled.body).toBe(201);
    const callId = scheduled.json().data.sessionId as string;
    for (let i = 0; i < LIMIT; i++)
      await seedCall(db.sql, c.org.organisationId, c.agentId, { call_status: 'IN_PROGRESS', answered_at: new Date() });
    // What the scheduler does when the call is due.
    await expect(apps[1].app.phoneCalls.placement.startRecorded(callId)).rejects.toThrow(/Plan call limit reached/);
    const [row] = await db.sql<{ call_status: string; call_outcome_detail: string }[]>`
      select call_status, call_outcome_detail from call_records where id = ${callId}`;
    expect(row).toEqual({
      call_status: 'FAILED',
      call_outcome_detail: expect.stringMatching(/^Plan call limit reached/),
    });
  });

  it('a call left QUEUED by an instance that died mid-placement is finished by the sweeper', async () => {
    const c = await caller(10_000);
    const lost = await seedCall(db.sql, c.org.organisationId, c.agentId, {
      call_status: 'QUEUED',
      created_at: new Date(Date.now() - QUEUED_HOLDS_LINE_MS - 60_000),
    });
    const placing = await seedCall(db.sql, c.org.organisationId, c.agentId, { call_status: 'QUEUED' });
    const finished = await new CallSweeper(db.sql, bus).runOnce();
    expect(finished).toContain(lost);
    expect(finished).not.toContain(placing);
    const rows = await db.sql<{ id: string; call_status: string; reason: string | null }[]>`
      select id, call_status, meta_data ->> 'endReason' as reason from call_records where id in ${db.sql([lost, placing])}`;
    expect(rows.find((r) => r.id === lost)).toMatchObject({ call_status: 'FAILED', reason: 'placement_lost' });
    expect(rows.find((r) => r.id === placing)).toMatchObject({ call_status: 'QUEUED', reason: null });
  });

  it("an organisation on a plan gets the plan's concurrentCalls instead of the default", async () => {
    const c = await caller(10_000);
    for (let i = 0; i < LIMIT; i++)
      await seedCall(db.sql, c.org.organisationId, c.agentId, { call_status: 'IN_PROGRESS', answered_at: new Date() });
    const admit = () => db.sql.begin((tx) => admitCall(tx, c.org.organisationId, { defaultConcurrentCalls: LIMIT }));
    await expect(admit()).rejects.toThrow(ApiError);
    // A QUEUED call left by a process that died mid-placement long ago holds no line; an ended one none either.
    await seedCall(db.sql, c.org.organisationId, c.agentId, {
      call_status: 'QUEUED',
      created_at: new Date(Date.now() - 10 * 60_000),
    });
    await db.sql`insert into billing_subscriptions (id, organisation_id, plan_id, status, current_period_start,
                   current_period_end, next_grant_at)
                 select ${newId()}, ${c.org.organisationId}, id, 'ACTIVE', now() - interval '1 day',
                        now() + interval '29 days', now() + interval '29 days' from billing_plans where code = 'pro_monthly_usd'`;
    // PRO allows 10 at once.
    await expect(admit()).resolves.toBeUndefined();
    // A plan with a number of calls per cycle refuses the one past it (the seeded plans set none).
    await db.sql`update billing_plans set call_limit = 4 where code = 'pro_monthly_usd'`;
    try {
      await expect(admit()).resolves.toBeUndefined();
      await seedCall(db.sql, c.org.organisationId, c.agentId, { call_status: 'COMPLETED', ended_at: new Date() });
      await expect(admit()).rejects.toThrow(
        /Plan call limit reached: the plan allows 4 calls per billing cycle and 4 were placed/,
      );
    } finally {
      await db.sql`update billing_plans set call_limit = null where code = 'pro_monthly_usd'`;
    }
  });
});
