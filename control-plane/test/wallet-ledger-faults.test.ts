/**
 * The ledger under faults and across its migration (docs/architecture.md §10): a process killed between the
 * statements of a debit leaves all or nothing; the wallets and operator adjustments of before the ledger arrive
 * as ADJUSTMENT entries that replay to the same balances.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/db/ids.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrate, MIGRATIONS_DIR } from '../src/db/migrator.ts';
import { readWalletAccount, unbalancedTransactions, walletReplay } from '../src/wallet/ledger-repository.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';
import { seedOrganisation, seedWallet } from './support/seed.ts';

const CHILD = fileURLToPath(new URL('./support/ledger-debit-child.ts', import.meta.url));
let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
}, 60_000);
afterAll(async () => db?.close());

describe.skipIf(!process.env.DATABASE_URL)('ledger faults (a child process needs a server it can reach)', () => {
  it('a debit whose process is SIGKILLed between statements leaves nothing behind', async () => {
    const org = await seedOrganisation(db.sql);
    await seedWallet(db.sql, org.organisationId, { balanceMinor: 1_000 });
    // Holding the entries table makes the child stop after it wrote its transaction row, before its entries.
    const blocker = await db.sql.reserve();
    try {
      await blocker`begin`;
      await blocker`lock table ledger_entries in exclusive mode`;
      const child = spawn(process.execPath, ['--import', 'tsx', CHILD, db.url!, db.schema, org.organisationId, '400'], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const backend = await waitFor(async () => /backend (\d+)/.exec(output)?.[1], 30_000);
      await waitFor(async () => {
        const [row] = await db.sql<{ waiting: boolean; query: string }[]>`
          select wait_event_type = 'Lock' as waiting, query from pg_stat_activity where pid = ${Number(backend)}`;
        return row?.waiting ? row.query : undefined;
      }, 30_000).then((query) => {
        // Stopped after writing its transaction row, at its entries: the middle of the debit.
        expect(query).toMatch(/insert into ledger_entries/);
      });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      expect(output).not.toContain('posted');
    } finally {
      await blocker`rollback`;
      blocker.release();
    }
    // The server notices the dropped connection and rolls its transaction back.
    await waitFor(async () => {
      const [row] = await db.sql<{ open: number }[]>`
        select count(*)::int as open from pg_stat_activity where application_name = 'parley' and state like 'idle in transaction%'
           and query like '%ledger_entries%'`;
      return row!.open === 0 || undefined;
    }, 30_000);
    expect((await readWalletAccount(db.sql, org.organisationId, 'WALLET'))?.balance).toBe(1_000);
    const [countRow] = await db.sql<{ count: number }[]>`
      select count(*)::int as count from ledger_transactions where actor = 'child' and organisation_id = ${org.organisationId}`;
    const count = countRow!.count;
    expect(count).toBe(0);
    for (const wallet of await walletReplay(db.sql, [org.organisationId])) expect(wallet.stored).toBe(wallet.replayed);

    // The same debit run to the end commits all of it.
    const done = await runChild(org.organisationId, 400);
    expect(done).toContain('committed');
    expect((await readWalletAccount(db.sql, org.organisationId, 'WALLET'))?.balance).toBe(600);
  }, 90_000);
});

async function runChild(organisationId: string, amount: number): Promise<string> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CHILD, db.url!, db.schema, organisationId, String(amount)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise((resolve) => child.once('exit', resolve));
  return output;
}

async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!process.env.DATABASE_URL)('migration 010 (the ledger takes over the wallets)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-before-ledger-'));
    for (const file of await fs.readdir(MIGRATIONS_DIR)) {
      if (Number(file.slice(0, 3)) < 10) await fs.copyFile(path.join(MIGRATIONS_DIR, file), path.join(dir, file));
    }
  });
  afterAll(async () => fs.rm(dir, { recursive: true, force: true }));

  it('carries balances and adjustments over as ADJUSTMENT entries that replay to the same balances', async () => {
    const schema = `${db.schema}_before_ledger`;
    const old = await openDatabase({ databaseUrl: db.url, schema, dataDir: undefined, maxConnections: 2 });
    const { sql } = old;
    try {
      await migrate(sql, schema, dir);
      const orgs = [newId(), newId(), newId()].sort();
      const user = newId();
      await sql`insert into users (id, name, email, is_email_verified) values (${user}, 'Owner', ${`${user}@example.com`}, false)`;
      for (const id of orgs) await sql`insert into organisations (id, name, owner_id) values (${id}, 'Org', ${user})`;
      // Org 0: credited twice through adjustments. Org 1: a balance set before adjustments were journaled, then one
      // credit. Org 2: no wallet at all.
      await sql`insert into wallet_balances (id, organisation_id, balance_minor, currency, has_paid) values
        (${newId()}, ${orgs[0]!}, 1500, 'USD', true), (${newId()}, ${orgs[1]!}, 2750, 'USD', false)`;
      await sql`insert into wallet_adjustments (id, organisation_id, amount_minor, currency, balance_after_minor, reason, actor, created_at) values
        (${newId()}, ${orgs[0]!}, 1000, 'USD', 1000, 'Bootstrap credit', 'parley start (first start)', now() - interval '2 days'),
        (${newId()}, ${orgs[0]!}, 500, 'USD', 1500, 'Goodwill', 'ops', now() - interval '1 day'),
        (${newId()}, ${orgs[1]!}, 250, 'USD', 250, 'Top-up by hand', 'ops', now() - interval '1 day')`;

      expect(await migrate(sql, schema)).toContain(10);

      const accounts = await sql`select organisation_id, balance::int as balance, has_paid, kind from ledger_accounts
        where organisation_id is not null order by organisation_id`;
      expect(accounts.map((a) => [a.organisation_id, a.balance, a.has_paid, a.kind])).toEqual([
        [orgs[0], 1500, true, 'WALLET'],
        [orgs[1], 2750, false, 'WALLET'],
      ]);
      const journal =
        await sql`select t.organisation_id, t.type, e.amount::int as amount, e.balance_after::int as after, t.actor
        from ledger_transactions t join ledger_entries e on e.transaction_id = t.id and e.balance_after is not null
        order by t.organisation_id, t.created_at`;
      expect(journal.map((j) => [j.organisation_id, j.type, j.amount, j.after, j.actor])).toEqual([
        [orgs[0], 'ADJUSTMENT', 1000, 1000, 'parley start (first start)'],
        [orgs[0], 'ADJUSTMENT', 500, 1500, 'ops'],
        [orgs[1], 'ADJUSTMENT', 2500, 2500, 'migration 010'],
        [orgs[1], 'ADJUSTMENT', 250, 2750, 'ops'],
      ]);
      expect(await unbalancedTransactions(sql)).toEqual([]);
      for (const wallet of await walletReplay(sql)) expect(wallet.stored).toBe(wallet.replayed);
      const [billing] = await sql<{ count: number }[]>`select count(*)::int as count from billing_accounts`;
      expect(billing!.count).toBe(3);
    } finally {
      await sql.unsafe(`drop schema if exists "${schema}" cascade`);
      await old.close();
    }
  }, 60_000);
});
