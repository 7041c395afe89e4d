/**
 * The ledger's invariants on the real database (docs/architecture.md §10): the stored balance is always the replay
 * of the journal, each transaction sums to zero, nothing goes below zero, each key posts once, and the journal
 * cannot be edited.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/db/ids.ts';
import { expireLapsedGrants, post, reverse, type Posting } from '../src/wallet/ledger.ts';
import {
  findTransaction,
  listGrants,
  readWalletAccount,
  unbalancedTransactions,
  walletReplay,
} from '../src/wallet/ledger-repository.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { seedOrganisation } from './support/seed.ts';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
}, 60_000);
afterAll(async () => db?.close());

const DAY_MS = 24 * 60 * 60 * 1000;

function usd(organisationId: string, amount: number, extra: Partial<Posting> = {}): Posting {
  return {
    organisationId,
    wallet: 'WALLET',
    currency: 'USD',
    type: amount > 0 ? 'CREDIT' : 'DEBIT',
    amount,
    counterparty: amount > 0 ? 'payments' : 'revenue',
    referenceType: amount > 0 ? 'TOP_UP' : 'VOICE_CALL',
    description: amount > 0 ? 'Top-up' : 'Call',
    actor: 'test',
    idempotencyKey: `k:${newId()}`,
    ...extra,
  };
}

function plan(organisationId: string, amount: number, extra: Partial<Posting> = {}): Posting {
  return {
    ...usd(organisationId, amount, extra),
    wallet: 'PLAN_WALLET',
    currency: 'INR',
    counterparty: amount > 0 ? 'plan_allowance' : 'revenue',
    ...extra,
  };
}

async function expectJournalReplays(organisationIds: string[]): Promise<void> {
  for (const wallet of await walletReplay(db.sql, organisationIds)) {
    expect(wallet.stored, `wallet ${wallet.accountId}`).toBe(wallet.replayed);
    if (wallet.grants !== null) expect(wallet.grants).toBe(wallet.stored);
    expect(wallet.stored).toBeGreaterThanOrEqual(0);
  }
  expect(await unbalancedTransactions(db.sql)).toEqual([]);
}

describe('ledger', () => {
  it('credits, debits and refuses a debit the wallet cannot pay, writing nothing for it', async () => {
    const org = await seedOrganisation(db.sql);
    const credit = await db.sql.begin((tx) => post(tx, usd(org.organisationId, 500)));
    expect(credit).toMatchObject({ status: 'posted', transaction: { amount: 500, balanceAfter: 500, type: 'CREDIT' } });
    const debit = await db.sql.begin((tx) => post(tx, usd(org.organisationId, -120)));
    expect(debit).toMatchObject({ status: 'posted', transaction: { amount: -120, balanceAfter: 380 } });
    const tooMuch = await db.sql.begin((tx) => post(tx, usd(org.organisationId, -381)));
    expect(tooMuch).toEqual({ status: 'insufficient_funds', spendable: 380 });
    const account = await readWalletAccount(db.sql, org.organisationId, 'WALLET');
    expect(account).toMatchObject({ balance: 380, hasPaid: true, currency: 'USD' });
    const [countRow] = await db.sql<{ count: number }[]>`
      select count(*)::int as count from ledger_transactions where organisation_id = ${org.organisationId}`;
    const count = countRow!.count;
    expect(count).toBe(2);
    await expectJournalReplays([org.organisationId]);
  });

  it('posts a key once: the second posting returns the first transaction and moves nothing', async () => {
    const org = await seedOrganisation(db.sql);
    const posting = usd(org.organisationId, 700, { idempotencyKey: `payment:${newId()}` });
    const first = await db.sql.begin((tx) => post(tx, posting));
    const again = await db.sql.begin((tx) => post(tx, { ...posting, amount: 999 }));
    expect(first.status).toBe('posted');
    expect(again).toMatchObject({
      status: 'duplicate',
      transaction: { id: first.status === 'posted' && first.transaction.id, amount: 700 },
    });
    expect((await readWalletAccount(db.sql, org.organisationId, 'WALLET'))?.balance).toBe(700);
  });

  it('the same key posted 5 times concurrently: one effect', async () => {
    const org = await seedOrganisation(db.sql);
    const posting = usd(org.organisationId, 1_000, { idempotencyKey: `payment:${newId()}` });
    const results = await Promise.all(Array.from({ length: 5 }, () => db.sql.begin((tx) => post(tx, posting))));
    expect(results.filter((r) => r.status === 'posted')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'duplicate')).toHaveLength(4);
    expect((await readWalletAccount(db.sql, org.organisationId, 'WALLET'))?.balance).toBe(1_000);
    await expectJournalReplays([org.organisationId]);
  });

  it('50 concurrent debits against a balance that pays for 20: exactly 20 succeed, never below zero', async () => {
    const org = await seedOrganisation(db.sql);
    await db.sql.begin((tx) => post(tx, usd(org.organisationId, 20 * 35)));
    const results = await Promise.all(
      Array.from({ length: 50 }, () => db.sql.begin((tx) => post(tx, usd(org.organisationId, -35)))),
    );
    expect(results.filter((r) => r.status === 'posted')).toHaveLength(20);
    expect(results.filter((r) => r.status === 'insufficient_funds')).toHaveLength(30);
    const balances = results.flatMap((r) => (r.status === 'posted' ? [r.transaction.balanceAfter] : []));
    expect(new Set(balances).size).toBe(20);
    expect(Math.min(...balances)).toBe(0);
    expect((await readWalletAccount(db.sql, org.organisationId, 'WALLET'))?.balance).toBe(0);
    await expectJournalReplays([org.organisationId]);
  });

  it('reverses a debit as a REFUND once, and refuses reversing a credit already spent', async () => {
    const org = await seedOrganisation(db.sql);
    const credit = await db.sql.begin((tx) => post(tx, usd(org.organisationId, 300)));
    const debit = await db.sql.begin((tx) => post(tx, usd(org.organisationId, -200)));
    if (debit.status !== 'posted' || credit.status !== 'posted') throw new Error('setup failed');
    const original = { ...debit.transaction, organisationId: org.organisationId };
    const refund = await db.sql.begin((tx) => reverse(tx, original, { description: 'Dropped call', actor: 'ops' }));
    expect(refund).toMatchObject({
      status: 'posted',
      transaction: { type: 'REFUND', amount: 200, balanceAfter: 300, reversesId: debit.transaction.id },
    });
    const twice = await db.sql.begin((tx) => reverse(tx, original, { description: 'again', actor: 'ops' }));
    expect(twice.status).toBe('duplicate');
    await db.sql.begin((tx) => post(tx, usd(org.organisationId, -250)));
    const spent = await db.sql.begin((tx) =>
      reverse(
        tx,
        { ...credit.transaction, organisationId: org.organisationId },
        { description: 'chargeback', actor: 'ops' },
      ),
    );
    expect(spent).toEqual({ status: 'insufficient_funds', spendable: 50 });
    expect(await findTransaction(db.sql, org.organisationId, debit.transaction.id)).toMatchObject({ amount: -200 });
    await expectJournalReplays([org.organisationId]);
  });

  it('plan wallets spend grants earliest-expiring first and never spend a lapsed one', async () => {
    const org = await seedOrganisation(db.sql);
    const now = Date.now();
    const grant = (amount: number, days: number, source: 'PLAN_CYCLE' | 'TOP_UP') =>
      db.sql.begin((tx) =>
        post(tx, plan(org.organisationId, amount, { grant: { source, expiresAt: new Date(now + days * DAY_MS) } })),
      );
    await grant(50_000, 365, 'TOP_UP');
    await grant(30_000, 30, 'PLAN_CYCLE');
    await grant(20_000, 2, 'TOP_UP');
    const spend = await db.sql.begin((tx) => post(tx, plan(org.organisationId, -45_000)));
    expect(spend).toMatchObject({ status: 'posted', transaction: { amount: -45_000, balanceAfter: 55_000 } });
    const remaining = (
      await listGrants(db.sql, (await readWalletAccount(db.sql, org.organisationId, 'PLAN_WALLET'))!.id)
    ).map((g) => [g.source, g.remaining]);
    // The 2-day grant is gone, the 30-day one paid the rest, the 365-day one is untouched.
    expect(remaining).toEqual([
      ['PLAN_CYCLE', 5_000],
      ['TOP_UP', 50_000],
    ]);
    // Three days on, with 55,000 left: the 30-day grant still spends, but only what is not lapsed counts.
    const later = new Date(now + 31 * DAY_MS);
    const tooMuch = await db.sql.begin((tx) => post(tx, plan(org.organisationId, -50_001, { at: later })));
    expect(tooMuch).toEqual({ status: 'insufficient_funds', spendable: 50_000 });
    // That posting expired the lapsed grant first (its own transaction, in the same database transaction).
    const [expiriesRow] = await db.sql<{ expiries: number }[]>`
      select count(*)::int as expiries from ledger_transactions
       where organisation_id = ${org.organisationId} and reference_type = 'GRANT_EXPIRY'`;
    const expiries = expiriesRow!.expiries;
    expect(expiries).toBe(1);
    expect((await readWalletAccount(db.sql, org.organisationId, 'PLAN_WALLET'))?.balance).toBe(50_000);
    await expectJournalReplays([org.organisationId]);
  });

  it('the expiry sweep moves lapsed grants out once', async () => {
    const org = await seedOrganisation(db.sql);
    await db.sql.begin((tx) =>
      post(
        tx,
        plan(org.organisationId, 10_000, {
          grant: { source: 'SIGNUP_CREDIT', expiresAt: new Date(Date.now() + DAY_MS) },
        }),
      ),
    );
    const later = new Date(Date.now() + 2 * DAY_MS);
    expect(await db.sql.begin((tx) => expireLapsedGrants(tx, org.organisationId, 'INR', later))).toBe(1);
    expect(await db.sql.begin((tx) => expireLapsedGrants(tx, org.organisationId, 'INR', later))).toBe(0);
    expect((await readWalletAccount(db.sql, org.organisationId, 'PLAN_WALLET'))?.balance).toBe(0);
    await expectJournalReplays([org.organisationId]);
  });

  it('refuses editing or deleting the journal, and an unbalanced transaction at commit', async () => {
    const org = await seedOrganisation(db.sql);
    const credit = await db.sql.begin((tx) => post(tx, usd(org.organisationId, 100)));
    if (credit.status !== 'posted') throw new Error('setup failed');
    await expect(
      db.sql`update ledger_entries set amount = 1 where transaction_id = ${credit.transaction.id}`,
    ).rejects.toThrow(/append-only/);
    await expect(db.sql`delete from ledger_transactions where id = ${credit.transaction.id}`).rejects.toThrow(
      /append-only/,
    );
    const account = await readWalletAccount(db.sql, org.organisationId, 'WALLET');
    await expect(
      db.sql.begin(async (tx) => {
        const id = newId();
        await tx`insert into ledger_transactions (id, organisation_id, type, reference_type, description, actor, idempotency_key)
                 values (${id}, ${org.organisationId}, 'CREDIT', 'TOP_UP', 'free money', 'attacker', ${`k:${id}`})`;
        await tx`insert into ledger_entries (id, transaction_id, account_id, amount, balance_after)
                 values (${newId()}, ${id}, ${account!.id}, 1000, 1100)`;
      }),
    ).rejects.toThrow(/unbalanced/);
    await expectJournalReplays([org.organisationId]);
  });

  it('property: any sequence of credits, debits, refunds and expiries keeps the journal replaying to the balances', async () => {
    const org = await seedOrganisation(db.sql);
    const start = Date.now();
    type Step =
      | { kind: 'credit' | 'debit'; wallet: 'WALLET' | 'PLAN_WALLET'; amount: number; days: number }
      | { kind: 'refund'; pick: number }
      | { kind: 'expire'; days: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({
        kind: fc.constantFrom('credit' as const, 'debit' as const),
        wallet: fc.constantFrom('WALLET' as const, 'PLAN_WALLET' as const),
        amount: fc.integer({ min: 1, max: 5_000 }),
        days: fc.integer({ min: 1, max: 400 }),
      }),
      fc.record({ kind: fc.constant('refund' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('expire' as const), days: fc.integer({ min: 0, max: 400 }) }),
    );
    const debits: { id: string; wallet: 'WALLET' | 'PLAN_WALLET' }[] = [];
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        for (const s of steps) {
          if (s.kind === 'expire') {
            await db.sql.begin((tx) =>
              expireLapsedGrants(tx, org.organisationId, 'INR', new Date(start + s.days * DAY_MS)),
            );
            continue;
          }
          if (s.kind === 'refund') {
            const target = debits[s.pick % Math.max(1, debits.length)];
            if (!target) continue;
            const original = await findTransaction(db.sql, org.organisationId, target.id);
            await db.sql.begin((tx) =>
              reverse(
                tx,
                { ...original!, organisationId: org.organisationId },
                { description: 'refund', actor: 'property' },
              ),
            );
            continue;
          }
          const make = s.wallet === 'WALLET' ? usd : plan;
          const amount = s.kind === 'credit' ? s.amount : -s.amount;
          const grant =
            s.wallet === 'PLAN_WALLET' && amount > 0
              ? { source: 'TOP_UP' as const, expiresAt: new Date(start + s.days * DAY_MS) }
              : undefined;
          const result = await db.sql.begin((tx) => post(tx, make(org.organisationId, amount, grant ? { grant } : {})));
          if (result.status === 'posted' && amount < 0) debits.push({ id: result.transaction.id, wallet: s.wallet });
        }
        await expectJournalReplays([org.organisationId]);
      }),
      {
        numRuns: Number(process.env.PARLEY_FUZZ_RUNS ?? 15),
        seed: process.env.PARLEY_FUZZ_SEED ? Number(process.env.PARLEY_FUZZ_SEED) : undefined,
      },
    );
  }, 120_000);
});
