/**
 * Metering calls (issue 14, item 2) on the real database: an answered call's end makes one usage record and one
 * wallet debit, however many times and by however many ends (the engine's `ended`, the sweeper, the end route) it
 * arrives; the price follows the rate card's pulse and minimum and the organisation's billing model; a call the
 * wallet cannot pay stays recorded and owed until the next credit pays it.
 */
import type { CallEvent } from '@parley/engine/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callPermission } from '../src/billing/call-permission.ts';
import { settleUnpaidUsage } from '../src/billing/settlement.ts';
import { hasUnpaidUsage } from '../src/billing/usage-repository.ts';
import { CallSweeper } from '../src/calls/jobs/call-sweeper.ts';
import { createPhoneCalls } from '../src/calls/launch/phone-calls.ts';
import { persistCallEvent } from '../src/calls/repository/call-event-store.ts';
import { VoiceSessionService } from '../src/calls/sessions/session-service.ts';
import { newId } from '../src/db/ids.ts';
import { post } from '../src/wallet/ledger.ts';
import { walletReplay } from '../src/wallet/ledger-repository.ts';
import { adjustWallet } from '../src/wallet/wallet.ts';
import { createTestBus } from './support/bus.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { seedAgent, seedCall, seedOrganisation, seedWallet, type SeededOrganisation } from './support/seed.ts';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
}, 60_000);
afterAll(async () => db?.close());

const ended = (durationMs: number): CallEvent => ({
  type: 'ended',
  reason: 'caller_hangup',
  outcome: 'completed',
  durationMs,
  latency: { turns: [] },
});

interface Funded {
  org: SeededOrganisation;
  agentId: string;
}

async function fundedOrganisation(balanceMinor: number): Promise<Funded> {
  const org = await seedOrganisation(db.sql, 'Metered');
  await seedWallet(db.sql, org.organisationId, { balanceMinor });
  return { org, agentId: await seedAgent(db.sql, org.organisationId, 'VOICE') };
}

/** A call in conversation: answered a minute ago, the engine heard from just now. */
function liveCall(o: Funded, extra: Parameters<typeof seedCall>[3] = {}): Promise<string> {
  return seedCall(db.sql, o.org.organisationId, o.agentId, {
    call_status: 'IN_PROGRESS',
    dispatched_at: new Date(Date.now() - 65_000),
    answered_at: new Date(Date.now() - 60_000),
    last_event_at: new Date(),
    ...extra,
  });
}

async function usageOf(callId: string) {
  return db.sql<
    { billed_seconds: number; duration_seconds: number; total_e4: string; wallet: string; wallet_deducted: boolean }[]
  >`select billed_seconds, duration_seconds, total_e4, wallet, wallet_deducted from usage_records
     where voice_session_id = ${callId}`;
}

async function debitsOf(callId: string): Promise<number> {
  const [row] = await db.sql<{ n: number }[]>`select count(*)::int as n from ledger_transactions
    where reference_type = 'VOICE_CALL' and reference_id = ${callId}`;
  return row!.n;
}

async function balanceOf(organisationId: string, kind: 'WALLET' | 'PLAN_WALLET' = 'WALLET'): Promise<number> {
  const [row] = await db.sql<{ balance: string }[]>`select balance from ledger_accounts
    where organisation_id = ${organisationId} and kind = ${kind}`;
  return Number(row?.balance ?? 0);
}

async function expectJournalReplays(organisationId: string): Promise<void> {
  const wallets = await walletReplay(db.sql, [organisationId]);
  expect(wallets.length).toBeGreaterThan(0);
  for (const wallet of wallets) expect(wallet.stored, wallet.accountId).toBe(wallet.replayed);
}

describe('exactly once', () => {
  it('meters the same ended event delivered 5 times at once: one usage record, one debit', async () => {
    const o = await fundedOrganisation(1_000);
    const callId = await liveCall(o);
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () => persistCallEvent(db.sql, callId, ended(61_000))),
    );
    expect(outcomes.filter((o) => o === 'applied')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'duplicate')).toHaveLength(4);
    // 61 s at a 6 s pulse is 66 s; at 5 cents a minute that is 5.5 cents, rounded up to 6.
    expect(await usageOf(callId)).toEqual([
      { billed_seconds: 66, duration_seconds: 61, total_e4: '60000', wallet: 'WALLET', wallet_deducted: true },
    ]);
    expect(await debitsOf(callId)).toBe(1);
    expect(await balanceOf(o.org.organisationId)).toBe(994);
    const [call] = await db.sql<{ is_billed: boolean; billed_at: Date | null }[]>`
      select is_billed, billed_at from call_records where id = ${callId}`;
    expect(call!.is_billed).toBe(true);
    expect(call!.billed_at).toBeInstanceOf(Date);
    await expectJournalReplays(o.org.organisationId);
  });

  it('meters once when the engine ends the call and the sweeper finishes it at the same moment, either first', async () => {
    const o = await fundedOrganisation(1_000);
    // Engine silent long enough for the sweeper, whose limit here is one second.
    const sweeper = new CallSweeper(db.sql, await createTestBus(), () => {}, { silenceMs: 1_000 });
    const calls = await Promise.all(
      Array.from({ length: 6 }, () => liveCall(o, { last_event_at: new Date(Date.now() - 30_000) })),
    );
    await Promise.all([
      ...calls.map((callId) => persistCallEvent(db.sql, callId, ended(30_000))),
      sweeper.runOnce(),
      sweeper.runOnce(),
    ]);
    // Whichever end came first, the other finds the call billed.
    await sweeper.runOnce();
    for (const callId of calls) {
      await persistCallEvent(db.sql, callId, ended(30_000));
      expect(await usageOf(callId)).toHaveLength(1);
      expect(await debitsOf(callId)).toBe(1);
    }
    const [{ total }] = (await db.sql`select coalesce(sum(total_e4), 0)::bigint as total from usage_records
      where organisation_id = ${o.org.organisationId}`) as unknown as [{ total: string }];
    expect(await balanceOf(o.org.organisationId)).toBe(1_000 - Number(total) / 10_000);
    await expectJournalReplays(o.org.organisationId);
  });

  it('meters a call ended by the end route, and the engine’s later ended event changes nothing', async () => {
    const o = await fundedOrganisation(1_000);
    const callId = await liveCall(o);
    const sessions = new VoiceSessionService(db.sql, await createTestBus());
    const principal = { organisationId: o.org.organisationId } as Parameters<VoiceSessionService['end']>[0];
    const { ended: endedNow } = await sessions.end(principal, `room-${callId}`, {});
    expect(endedNow).toBe(true);
    const [first] = await usageOf(callId);
    // Answered a minute ago: 60 s (or 61 s on a slow machine) billed.
    expect([60, 66]).toContain(first!.billed_seconds);
    expect(await persistCallEvent(db.sql, callId, ended(75_000))).toBe('applied');
    expect(await usageOf(callId)).toEqual([first]);
    expect(await debitsOf(callId)).toBe(1);
  });

  it("meters a call the carrier reports ended (its engine gone silent), and the engine's late ended changes nothing", async () => {
    const o = await fundedOrganisation(1_000);
    const callId = await liveCall(o, { meta_data: { carrier: 'carrier-b', carrierCallSid: 'CA-ended' } });
    const { carrierCalls } = createPhoneCalls({
      sql: db.sql,
      bus: await createTestBus(),
      publicUrl: 'http://parley.test',
      keyRing: undefined,
      admission: { defaultConcurrentCalls: 10 },
    });
    const call = await carrierCalls.callById(callId);
    await carrierCalls.progress(call!, 'carrier-b', { CallSid: 'CA-ended', CallStatus: 'completed' });
    const [first] = await usageOf(callId);
    expect(first).toMatchObject({ wallet: 'WALLET', wallet_deducted: true });
    expect([60, 66]).toContain(first!.billed_seconds);
    expect(await persistCallEvent(db.sql, callId, ended(90_000))).toBe('applied');
    expect(await usageOf(callId)).toEqual([first]);
    expect(await debitsOf(callId)).toBe(1);
  });

  it("records the call's recording once as RECORDING usage, included in the call's price", async () => {
    const o = await fundedOrganisation(1_000);
    const callId = await liveCall(o);
    await persistCallEvent(db.sql, callId, ended(30_000));
    const recording: CallEvent = {
      type: 'recording',
      path: `${o.org.organisationId}/${callId}.ogg`,
      durationMs: 30_000,
      format: 'ogg-opus',
    };
    await Promise.all([persistCallEvent(db.sql, callId, recording), persistCallEvent(db.sql, callId, recording)]);
    const records = await db.sql<
      { usage_type: string; duration_seconds: number; total_e4: string; wallet_deducted: boolean }[]
    >`
      select usage_type, duration_seconds, total_e4, wallet_deducted from usage_records
       where voice_session_id = ${callId} order by usage_type`;
    expect(records).toEqual([
      { usage_type: 'RECORDING', duration_seconds: 30, total_e4: '0', wallet_deducted: true },
      { usage_type: 'VOICE_CALL', duration_seconds: 30, total_e4: '30000', wallet_deducted: true },
    ]);
    // Only the call was debited: 30 s is 2.5 cents, rounded up to 3.
    expect(await balanceOf(o.org.organisationId)).toBe(997);
    await expectJournalReplays(o.org.organisationId);
  });

  it('bills nothing for a call that was never answered', async () => {
    const o = await fundedOrganisation(1_000);
    const callId = await seedCall(db.sql, o.org.organisationId, o.agentId, {
      call_status: 'RINGING',
      dispatched_at: new Date(),
    });
    await persistCallEvent(db.sql, callId, {
      type: 'ended',
      reason: 'no_answer',
      outcome: 'no_answer',
      durationMs: 0,
      latency: { turns: [] },
    });
    expect(await usageOf(callId)).toEqual([]);
    expect(await balanceOf(o.org.organisationId)).toBe(1_000);
  });
});

describe('price', () => {
  // The rate card (migration 010): STARTER USD 5 cents a minute, PRO USD 4 cents, STARTER INR 3.50 rupees; all with a
  // 6 s pulse and a 6 s minimum.
  it.each([
    // engine ms, seconds, billed seconds, pay-as-you-go USD total (e4, whole cents)
    [1, 1, 6, 10_000], // 0.5 cent → 1
    [5_999, 6, 6, 10_000],
    [6_000, 6, 6, 10_000],
    [6_001, 7, 12, 10_000], // 1 cent exactly
    [59_000, 59, 60, 50_000],
    [61_000, 61, 66, 60_000], // 5.5 → 6
    [119_500, 120, 120, 100_000],
    [3_600_000, 3_600, 3_600, 3_000_000],
  ])('pay-as-you-go: %i ms → %i s → %i s billed → %i e4', async (ms, seconds, billed, total) => {
    const o = await fundedOrganisation(10_000);
    const callId = await liveCall(o);
    await persistCallEvent(db.sql, callId, ended(ms));
    expect(await usageOf(callId)).toEqual([
      {
        billed_seconds: billed,
        duration_seconds: seconds,
        total_e4: String(total),
        wallet: 'WALLET',
        wallet_deducted: true,
      },
    ]);
    expect(await balanceOf(o.org.organisationId)).toBe(10_000 - total / 10_000);
  });

  it("charges a pay-as-you-go organisation's own rate per minute, rounded up to a cent", async () => {
    const o = await fundedOrganisation(1_000);
    await db.sql`insert into billing_accounts (organisation_id, rate_per_minute_e4) values (${o.org.organisationId}, 12345)
                 on conflict (organisation_id) do update set rate_per_minute_e4 = 12345`;
    const callId = await liveCall(o);
    await persistCallEvent(db.sql, callId, ended(61_000));
    // 12345 e4 × 66 / 60 = 13579.5 e4 → 2 cents.
    expect((await usageOf(callId))[0]).toMatchObject({ billed_seconds: 66, total_e4: '20000' });
    expect(await balanceOf(o.org.organisationId)).toBe(998);
  });

  it.each([
    ['pro_monthly_usd', 'USD', 44_000], // 4 cents × 66/60, exactly
    ['starter_monthly_inr', 'INR', 3_850_000], // 3.50 rupees × 66/60
  ])(
    'plan billing (%s): the tier’s price in the plan’s currency, exact to 4 decimals',
    async (planCode, currency, total) => {
      const org = await seedOrganisation(db.sql, 'Plan');
      const agentId = await seedAgent(db.sql, org.organisationId, 'VOICE');
      // Plan billing runs in the billing country's currency.
      await db.sql`update organisations set billing_country = ${currency === 'INR' ? 'IN' : 'US'} where id = ${org.organisationId}`;
      await db.sql`insert into billing_accounts (organisation_id, billing_model) values (${org.organisationId}, 'WALLET')
                 on conflict (organisation_id) do update set billing_model = 'WALLET'`;
      await db.sql`insert into billing_subscriptions (id, organisation_id, plan_id, status, current_period_start,
                   current_period_end, next_grant_at)
                 select ${newId()}, ${org.organisationId}, id, 'ACTIVE', now(), now() + interval '30 days',
                        now() + interval '30 days' from billing_plans where code = ${planCode}`;
      await db.sql.begin((tx) =>
        post(tx, {
          organisationId: org.organisationId,
          wallet: 'PLAN_WALLET',
          currency,
          type: 'CREDIT',
          amount: 10_000_000,
          counterparty: 'plan_allowance',
          referenceType: 'PLAN_CYCLE',
          description: 'Allowance',
          actor: 'test',
          idempotencyKey: `allowance:${newId()}`,
          grant: { source: 'PLAN_CYCLE', expiresAt: new Date(Date.now() + 30 * 86_400_000) },
        }),
      );
      const callId = await liveCall({ org, agentId });
      await persistCallEvent(db.sql, callId, ended(61_000));
      expect(await usageOf(callId)).toEqual([
        {
          billed_seconds: 66,
          duration_seconds: 61,
          total_e4: String(total),
          wallet: 'PLAN_WALLET',
          wallet_deducted: true,
        },
      ]);
      expect(await balanceOf(org.organisationId, 'PLAN_WALLET')).toBe(10_000_000 - total);
      expect(await balanceOf(org.organisationId, 'WALLET')).toBe(0);
      await expectJournalReplays(org.organisationId);
    },
  );
});

describe('a call the wallet cannot pay', () => {
  it('is recorded unpaid, stops the organisation calling, and is paid by the next credit', async () => {
    const o = await fundedOrganisation(3);
    const callId = await liveCall(o);
    expect(await persistCallEvent(db.sql, callId, ended(61_000))).toBe('applied');
    expect(await usageOf(callId)).toEqual([
      { billed_seconds: 66, duration_seconds: 61, total_e4: '60000', wallet: 'WALLET', wallet_deducted: false },
    ]);
    expect(await debitsOf(callId)).toBe(0);
    expect(await balanceOf(o.org.organisationId)).toBe(3);
    const [call] = await db.sql<{ is_billed: boolean }[]>`select is_billed from call_records where id = ${callId}`;
    expect(call!.is_billed).toBe(true);
    expect(await hasUnpaidUsage(db.sql, o.org.organisationId)).toBe(true);
    // Billing status's canMakeCalls and every launch route's 402 come from this one decision.
    expect(await callPermission(db.sql, o.org.organisationId)).toMatchObject({
      allowed: false,
      reason: 'unpaid_usage',
    });

    const settled = await db.sql.begin(async (tx) => {
      const credit = await adjustWallet(tx, {
        organisationId: o.org.organisationId,
        amountMinor: 500,
        reason: 'Top-up by the operator',
        actor: 'test',
      });
      expect(credit.status).toBe('posted');
      return settleUnpaidUsage(tx, o.org.organisationId);
    });
    expect(settled).toBe(1);
    expect((await usageOf(callId))[0]!.wallet_deducted).toBe(true);
    expect(await debitsOf(callId)).toBe(1);
    expect(await balanceOf(o.org.organisationId)).toBe(497);
    expect(await hasUnpaidUsage(db.sql, o.org.organisationId)).toBe(false);
    expect(await callPermission(db.sql, o.org.organisationId)).toEqual({ allowed: true });
    await expectJournalReplays(o.org.organisationId);
  });
});
