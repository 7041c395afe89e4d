/**
 * `parley users password`: a user made by `parley org create` (no password) gets one from standard input, and the
 * stored scrypt hash verifies it; refusals for a short password and an unknown e-mail address.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.ts';
import { verifyPassword } from '../src/oauth/password.ts';
import { runCli, type Env } from './support/processes.ts';

/** Four CLI processes one after another: a process start (embedded database, migrations) takes 2 s on a quiet machine and up to 25 s on a loaded one. */
const FOUR_PROCESS_STARTS_MS = 120_000;

let env: Env;
let dataDir: string;
const schema = `t_cli_pw_${randomBytes(5).toString('hex')}`;

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-cli-pw-'));
  env = process.env.DATABASE_URL
    ? { DATABASE_URL: process.env.DATABASE_URL, PARLEY_DB_SCHEMA: schema, PARLEY_DATA_DIR: dataDir }
    : { PARLEY_DATA_DIR: dataDir };
});

afterAll(async () => {
  if (process.env.DATABASE_URL) {
    const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, schema: 'public', dataDir: undefined });
    await db.sql.unsafe(`drop schema if exists "${schema}" cascade`);
    await db.close();
  }
  await fs.rm(dataDir, { recursive: true, force: true });
});

describe('parley users password', () => {
  it(
    'sets the password a user logs in with, read from standard input',
    async () => {
      const created = await runCli(
        ['org', 'create', '--name', 'Pw Co', '--owner-email', 'pw@example.test', '--json'],
        env,
      );
      expect(created.code, created.stderr).toBe(0);
      const set = await runCli(['users', 'password', '--email', 'PW@example.test', '--json'], env, 'a fine password\n');
      expect(set.code, set.stderr).toBe(0);
      const short = await runCli(['users', 'password', '--email', 'pw@example.test'], env, 'short\n');
      expect(short.code).toBe(2);
      expect(short.stderr).toContain('8 to 256 characters');
      const unknown = await runCli(['users', 'password', '--email', 'nobody@example.test'], env, 'a fine password\n');
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('no user with e-mail');

      const db = await openDatabase({
        databaseUrl: env.DATABASE_URL,
        schema: env.DATABASE_URL ? schema : 'public',
        dataDir: env.DATABASE_URL ? undefined : dataDir,
      });
      try {
        const [user] = await db.sql<
          { password_hash: string }[]
        >`select password_hash from users where email = 'pw@example.test'`;
        expect(user!.password_hash).toMatch(/^scrypt\$/);
        expect(await verifyPassword('a fine password', user!.password_hash)).toBe(true);
        expect(await verifyPassword('another password', user!.password_hash)).toBe(false);
      } finally {
        await db.close();
      }
    },
    FOUR_PROCESS_STARTS_MS,
  );
});
