/** The `parley` command, run as a real process against the test's database (a schema of DATABASE_URL, or PGlite). */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.ts';
import { CUSTOMER_SCOPES } from '../src/auth/scopes.ts';
import { KeyStore } from '../src/auth/key-store.ts';
import { createTestBus } from './support/bus.ts';
import { runCli, type Env } from './support/processes.ts';

let env: Env;
let dataDir: string;
const schema = `t_cli_${randomBytes(5).toString('hex')}`;

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-cli-'));
  env = process.env.DATABASE_URL
    ? {
        DATABASE_URL: process.env.DATABASE_URL,
        PARLEY_DB_SCHEMA: schema,
        NATS_URL: process.env.NATS_URL,
        PARLEY_DATA_DIR: dataDir,
      }
    : { PARLEY_DATA_DIR: dataDir };
});
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

/** Opens the database the CLI used, after the CLI exited (PGlite files belong to one process at a time). */
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

function json(result: { stdout: string }) {
  return JSON.parse(result.stdout.trim()) as Record<string, unknown>;
}

/** Nine CLI processes one after another: a process start takes 2 s on a quiet machine and 10 s on a loaded one. */
const NINE_PROCESS_STARTS_MS = 120_000;

describe('parley CLI', () => {
  let organisationId: string;
  let ownerKey: string;

  it('migrates and says so', async () => {
    const result = await runCli(['migrate', '--json'], env);
    expect(result.code, result.stderr).toBe(0);
    expect(json(result)).toMatchObject({ ok: true });
  });

  it('creates an organisation with its owner and a key with every scope, as one JSON object', async () => {
    const result = await runCli(
      ['org', 'create', '--name', 'Acme Calls', '--owner-email', 'ceo@acme.test', '--json'],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    const out = json(result);
    expect(out).toMatchObject({
      organisationId: expect.stringMatching(/^[0-9a-f]{24}$/),
      userId: expect.stringMatching(/^[0-9a-f]{24}$/),
    });
    expect(out.apiKey).toMatch(/^parley_prod_[a-z0-9]{8}_[0-9a-f]{32}$/);
    expect(out.scopes).toEqual([...CUSTOMER_SCOPES]);
    organisationId = out.organisationId as string;
    ownerKey = out.apiKey as string;
    await withCliDatabase(async (db) => {
      const keys = new KeyStore(db.sql, await createTestBus(), () => {});
      expect(await keys.authenticate(ownerKey)).toMatchObject({ organisationId, role: 'OWNER', userId: out.userId });
      const [org] = await db.sql`select name, features from organisations where id = ${organisationId}`;
      expect(org).toEqual({ name: 'Acme Calls', features: [] });
    });
  });

  it("credits a new organisation's wallet with --credit, journaled with who and why", async () => {
    const result = await runCli(
      ['org', 'create', '--name', 'Funded', '--owner-email', 'cfo@funded.test', '--credit', '5.50', '--json'],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    const out = json(result);
    expect(out.creditUsd).toBe('5.50');
    await withCliDatabase(async (db) => {
      const [wallet] = await db.sql`select balance::int as balance, currency from ledger_accounts
        where organisation_id = ${out.organisationId as string} and kind = 'WALLET'`;
      expect(wallet).toEqual({ balance: 550, currency: 'USD' });
      const journal =
        await db.sql`select e.amount::int as amount, e.balance_after::int as after, t.description as reason, t.actor, t.type
        from ledger_transactions t join ledger_entries e on e.transaction_id = t.id and e.balance_after is not null
        where t.organisation_id = ${out.organisationId as string}`;
      expect(journal).toEqual([
        {
          amount: 550,
          after: 550,
          reason: 'Sign-up credit (parley org create --credit)',
          actor: 'parley org create',
          type: 'ADJUSTMENT',
        },
      ]);
      // Without --credit the wallet is not opened at all: nothing is journaled.
      const [unfunded] = await db.sql<{ count: number }[]>`select count(*)::int as count from ledger_transactions
        where organisation_id = ${organisationId}`;
      expect(unfunded?.count).toBe(0);
    });
  });

  it('switches organisation features', async () => {
    const result = await runCli(
      ['org', 'features', organisationId, '--enable', 'flow_agents,managed_numbers', '--json'],
      env,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(json(result)).toEqual({ organisationId, features: ['flow_agents', 'managed_numbers'] });
    const off = await runCli(['org', 'features', organisationId, '--disable', 'flow_agents', '--json'], env);
    expect(json(off)).toEqual({ organisationId, features: ['managed_numbers'] });
  });

  it('creates a key with chosen scopes, then revokes it', async () => {
    const created = await runCli(
      ['keys', 'create', '--org', organisationId, '--scopes', 'org:read,agents:read', '--name', 'reporting', '--json'],
      env,
    );
    expect(created.code, created.stderr).toBe(0);
    const out = json(created);
    expect(out.scopes).toEqual(['org:read', 'agents:read']);
    const revoked = await runCli(['keys', 'revoke', out.id as string, '--json'], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(json(revoked)).toMatchObject({ id: out.id, revokedAt: expect.any(String) });
    await withCliDatabase(async (db) => {
      const keys = new KeyStore(db.sql, await createTestBus(), () => {});
      expect(await keys.authenticate(out.apiKey as string)).toBeUndefined();
      expect(await keys.authenticate(ownerKey)).toBeDefined();
    });
  });

  it('refuses a --credit it would have to round, before touching the database', async () => {
    for (const credit of ['-5', '1.005', 'ten']) {
      const result = await runCli(
        ['org', 'create', '--name', 'X', '--owner-email', 'x@y.test', `--credit=${credit}`],
        env,
      );
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(/--credit must be an amount in dollars/);
    }
  });

  it(
    'explains mistakes with exit code 2 and no stack trace',
    async () => {
      const cases: [string[], RegExp][] = [
        [
          ['keys', 'create', '--org', organisationId, '--scopes', 'org:read,root:all', '--name', 'x'],
          /unknown scope "root:all"/,
        ],
        [['keys', 'create', '--org', organisationId, '--name', 'x'], /--scopes is required/],
        [['keys', 'revoke', 'abc'], /key id/],
        [['keys', 'revoke', '0123456789abcdef01234567'], /no API key/],
        [['org', 'create', '--name', 'X', '--owner-email', 'not-mail'], /--owner-email/],
        [['org', 'features', organisationId, '--enable', 'teleportation'], /unknown feature "teleportation"/],
        [['frobnicate'], /unknown command "frobnicate"/],
        [['start', '--roles', 'dialer'], /unknown role "dialer"/],
        [['start', '--bogus'], /bogus/],
      ];
      for (const [args, message] of cases) {
        const result = await runCli(args, env);
        expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
        expect(result.stderr).toMatch(message);
        expect(result.stderr).not.toMatch(/\n\s+at /);
      }
    },
    NINE_PROCESS_STARTS_MS,
  );

  it('prints usage', async () => {
    const result = await runCli(['--help'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('parley <command>');
    expect(result.stdout).toContain('keys revoke ID');
  });
});
