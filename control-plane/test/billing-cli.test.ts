/**
 * `parley billing`, run as a real process: an operator puts an organisation on a plan (its first allowance in the
 * plan wallet at once, journaled with who), refuses a second plan, suspends and resumes its calling.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.ts';
import { migrate } from '../src/db/migrator.ts';
import { readWalletAccount, walletReplay } from '../src/wallet/ledger-repository.ts';
import { runCli, type Env } from './support/processes.ts';
import { seedOrganisation } from './support/seed.ts';

let env: Env;
let dataDir: string;
const schema = `t_billing_cli_${randomBytes(5).toString('hex')}`;

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-billing-cli-'));
  env = process.env.DATABASE_URL
    ? { DATABASE_URL: process.env.DATABASE_URL, PARLEY_DB_SCHEMA: schema, PARLEY_DATA_DIR: dataDir }
    : { PARLEY_DATA_DIR: dataDir };
});
afterAll(async () => {
  if (process.env.DATABASE_URL) await withDatabase((db) => db.sql.unsafe(`drop schema if exists "${schema}" cascade`));
  await fs.rm(dataDir, { recursive: true, force: true });
});

/** The database the CLI uses, opened between its runs (PGlite files belong to one process at a time). */
async function withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    schema: env.DATABASE_URL ? schema : 'public',
    dataDir: env.DATABASE_URL ? undefined : dataDir,
    maxConnections: 2,
  });
  try {
    await migrate(db.sql, db.schema);
    return await work(db);
  } finally {
    await db.close();
  }
}

describe('parley billing', () => {
  it('puts an organisation on a plan, refuses a second, suspends and resumes it', async () => {
    const organisationId = await withDatabase(async (db) => {
      const org = await seedOrganisation(db.sql);
      await db.sql`update organisations set billing_country = 'IN' where id = ${org.organisationId}`;
      return org.organisationId;
    });

    const planned = await runCli(
      ['billing', 'plan', '--org', organisationId, '--plan', 'starter_monthly_inr', '--json'],
      env,
    );
    expect(planned.code, planned.stderr).toBe(0);
    expect(JSON.parse(planned.stdout)).toMatchObject({
      planCode: 'starter_monthly_inr',
      currency: 'INR',
      allowance: '2499.00',
    });

    const again = await runCli(['billing', 'plan', '--org', organisationId, '--plan', 'pro_monthly_inr'], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/already has a subscription/);

    const suspended = await runCli(
      ['billing', 'suspend', '--org', organisationId, '--reason', 'Chargeback under review'],
      env,
    );
    expect(suspended.code, suspended.stderr).toBe(0);
    await withDatabase(async (db) => {
      const [account] = await db.sql`select billing_model, is_suspended, suspended_reason from billing_accounts
                                      where organisation_id = ${organisationId}`;
      expect(account).toEqual({
        billing_model: 'WALLET',
        is_suspended: true,
        suspended_reason: 'Chargeback under review',
      });
      expect((await readWalletAccount(db.sql, organisationId, 'PLAN_WALLET'))?.balance).toBe(2_499_000_000);
      const [journal] =
        await db.sql`select reference_type, actor from ledger_transactions where organisation_id = ${organisationId}`;
      expect(journal).toMatchObject({
        reference_type: 'PLAN_CYCLE',
        actor: expect.stringMatching(/^parley billing plan/),
      });
      for (const wallet of await walletReplay(db.sql, [organisationId])) expect(wallet.stored).toBe(wallet.replayed);
    });

    const resumed = await runCli(['billing', 'resume', '--org', organisationId, '--json'], env);
    expect(JSON.parse(resumed.stdout)).toEqual({ organisationId, suspended: false, reason: null });
  }, 120_000);

  it('refuses a plan in another currency than the billing country pays in', async () => {
    const organisationId = await withDatabase(async (db) => {
      const org = await seedOrganisation(db.sql);
      await db.sql`update organisations set billing_country = 'DE' where id = ${org.organisationId}`;
      return org.organisationId;
    });
    const refused = await runCli(['billing', 'plan', '--org', organisationId, '--plan', 'starter_monthly_inr'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/sold in INR; an organisation billed in DE pays in USD/);
  }, 60_000);
});
