/**
 * `parley wallet credit|debit|show`, run as a real process against the test's database (a schema of DATABASE_URL,
 * or PGlite): journaled with who and why, a credit pays what the organisation owes, a debit never overdraws.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { provisionOrganisation } from '../src/accounts/provisioning.ts';
import { insertUsage } from '../src/billing/usage-repository.ts';
import { openDatabase, type Database } from '../src/db/database.ts';
import { migrate } from '../src/db/migrator.ts';
import { walletReplay } from '../src/wallet/ledger-repository.ts';
import { runCli, type Env } from './support/processes.ts';

let env: Env;
let dataDir: string;
const schema = `t_cliw_${randomBytes(5).toString('hex')}`;
let organisationId: string;

/** Opens the database the CLI uses, when no CLI process holds it (PGlite files belong to one process at a time). */
async function withCliDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase({
    databaseUrl: env.DATABASE_URL,
    schema: env.DATABASE_URL ? schema : 'public',
    dataDir: env.DATABASE_URL ? undefined : dataDir,
  });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-cli-wallet-'));
  env = process.env.DATABASE_URL
    ? { DATABASE_URL: process.env.DATABASE_URL, PARLEY_DB_SCHEMA: schema, PARLEY_DATA_DIR: dataDir }
    : { PARLEY_DATA_DIR: dataDir };
  // An organisation that owes 1.50 for a call its empty wallet could not pay.
  organisationId = await withCliDatabase(async (db) => {
    await migrate(db.sql, db.schema);
    const created = await provisionOrganisation(db.sql, { name: 'Owes', ownerEmail: 'ops@owes.test' });
    await insertUsage(db.sql, {
      organisationId: created.organisationId,
      voiceSessionId: null,
      roomName: 'room-owed',
      callDirection: 'OUTBOUND',
      usageType: 'VOICE_CALL',
      durationSeconds: 1_800,
      billedSeconds: 1_800,
      messageCount: 0,
      rateE4: 50_000,
      totalE4: 1_500_000,
      currency: 'USD',
      wallet: 'WALLET',
      startTime: null,
      endTime: null,
      idempotencyKey: `test:${created.organisationId}`,
    });
    return created.organisationId;
  });
}, 60_000);

afterAll(async () => {
  if (process.env.DATABASE_URL) {
    const db = await openDatabase({
      databaseUrl: process.env.DATABASE_URL,
      schema: 'public',
      dataDir: undefined,
      maxConnections: 1,
    });
    await db.sql.unsafe(`drop schema if exists "${schema}" cascade`);
    await db.close();
  }
  await fs.rm(dataDir, { recursive: true, force: true });
});

const json = (result: { stdout: string }) => JSON.parse(result.stdout.trim()) as Record<string, unknown>;

/** Four CLI processes one after another: 2 s each on a quiet machine, 10 s on a loaded one. */
const FOUR_PROCESS_STARTS_MS = 60_000;

describe('parley wallet', () => {
  it(
    'credits (paying what is owed), refuses a debit it cannot pay, debits, and shows the journal',
    async () => {
      const credit = await runCli(
        [
          'wallet',
          'credit',
          '--org',
          organisationId,
          '--amount',
          '5.00',
          '--reason',
          'Goodwill after outage',
          '--json',
        ],
        env,
      );
      expect(credit.code, credit.stderr).toBe(0);
      // 5.00 in, then the 1.50 owed paid from it.
      expect(json(credit)).toMatchObject({
        organisationId,
        type: 'ADJUSTMENT',
        amount: '5.00',
        balanceAfter: '5.00',
        balance: '3.50',
        currency: 'USD',
        reason: 'Goodwill after outage',
        actor: os.userInfo().username,
        settledUsageRecords: 1,
      });

      const refused = await runCli(
        ['wallet', 'debit', '--org', organisationId, '--amount', '3.51', '--reason', 'Too much', '--json'],
        env,
      );
      expect(refused.code, refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(
        /the wallet holds 3\.50 USD: a debit of 3\.51 cannot be paid; nothing was changed/,
      );

      const debit = await runCli(
        ['wallet', 'debit', '--org', organisationId, '--amount', '0.50', '--reason', 'Chargeback', '--actor', 'alice'],
        env,
      );
      expect(debit.code, debit.stderr).toBe(0);
      expect(debit.stdout).toMatch(/Debited 0\.50 USD .* by alice\): balance 3\.00 USD/);

      const show = await runCli(['wallet', 'show', '--org', organisationId, '--json'], env);
      expect(show.code, show.stderr).toBe(0);
      const shown = json(show);
      expect(shown).toMatchObject({ balance: '3.00', currency: 'USD', unpaidUsageRecords: 0, unpaidAmount: '0.00' });
      const listed = (shown.transactions as { type: string; amount: string; actor: string; description: string }[]).map(
        (t) => [t.type, t.amount, t.actor, t.description],
      );
      // Newest first; the credit and the debit it paid share one database transaction, so one timestamp.
      expect(listed[0]).toEqual(['ADJUSTMENT', '-0.50', 'alice', 'Chargeback']);
      expect(listed.slice(1)).toEqual(
        expect.arrayContaining([
          ['DEBIT', '-1.50', 'metering', 'Call room-owed: 1800 s billed of 1800 s'],
          ['ADJUSTMENT', '5.00', os.userInfo().username, 'Goodwill after outage'],
        ]),
      );
      expect(listed).toHaveLength(3);

      await withCliDatabase(async (db) => {
        for (const wallet of await walletReplay(db.sql, [organisationId])) expect(wallet.stored).toBe(wallet.replayed);
      });
    },
    FOUR_PROCESS_STARTS_MS,
  );

  it('explains a mistake with exit code 2', async () => {
    const result = await runCli(
      ['wallet', 'credit', '--org', organisationId, '--amount', '1.005', '--reason', 'x'],
      env,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--amount must be a positive amount in dollars/);
  }, 30_000);
});
