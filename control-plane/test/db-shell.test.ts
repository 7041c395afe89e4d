/**
 * The embedded database is reachable the way Postgres users expect: `psql -h <data dir>` (its socket is named
 * `.s.PGSQL.5432`, libpq's default), and `parley db shell` runs psql on it — beside a running server, with no server
 * (it serves the files itself while psql runs), or on DATABASE_URL's server in PARLEY_DB_SCHEMA.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/database.ts';
import { childEnv, runCli, startServer, type RunningServer } from './support/processes.ts';

const hasPsql = spawnSync('sh', ['-c', 'command -v psql'], { stdio: 'ignore' }).status === 0;
const dirs: string[] = [];
let server: RunningServer | undefined;

async function tempDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-db-shell-'));
  dirs.push(dir);
  return dir;
}

afterAll(async () => {
  await server?.stop('SIGKILL');
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
});

describe.runIf(hasPsql)('the embedded database and psql', () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await tempDir();
    server = await startServer({ PARLEY_DATA_DIR: dataDir });
  });

  it('answers `psql -h <data dir>` with nothing else said, as README shows', () => {
    const psql = spawnSync('psql', ['-h', dataDir, '-X', '-A', '-t', '-c', 'SELECT 1'], {
      encoding: 'utf8',
      env: childEnv({}),
    });
    expect(psql.stderr).toBe('');
    expect(psql.stdout.trim()).toBe('1');
  });

  it('`parley db shell` runs psql beside the running server, reading stdin', async () => {
    const shell = await runCli(['db', 'shell'], { PARLEY_DATA_DIR: dataDir }, 'select 42;\n');
    expect(shell.code, shell.stderr).toBe(0);
    expect(shell.stdout).toMatch(/^\s+42$/m);
    // The server still serves after the shell left.
    expect((await fetch(`${server!.url}/healthz`)).status).toBe(200);
  });

  it('`parley db shell` with no server running serves the files itself, and passes psql arguments on', async () => {
    expect(await server!.stop()).toBe(0);
    server = undefined;
    const shell = await runCli(
      ['db', 'shell', '--', '-A', '-t'],
      { PARLEY_DATA_DIR: dataDir },
      'select count(*) from organisations;\n',
    );
    expect(shell.code, shell.stderr).toBe(0);
    expect(shell.stdout.trim()).toBe('1');
    // It stopped serving when psql left, taking its socket with it.
    expect(await fs.readdir(dataDir)).not.toContain('.s.PGSQL.5432');
  });
});

describe('parley db shell, refusing', () => {
  it('says how to install psql when it is not on PATH', async () => {
    const shell = await runCli(['db', 'shell'], { PARLEY_DATA_DIR: await tempDir(), PATH: await tempDir() });
    expect(shell.code).toBe(2);
    expect(shell.stderr).toContain('psql is not installed');
    expect(shell.stderr).toContain('apt-get install postgresql-client');
  });

  it.runIf(hasPsql)('says to start Parley first when the data directory holds no database yet', async () => {
    const dataDir = await tempDir();
    const shell = await runCli(['db', 'shell'], { PARLEY_DATA_DIR: dataDir }, 'select 1;\n');
    expect(shell.code).toBe(2);
    expect(shell.stderr).toContain(`no embedded database in ${dataDir} yet`);
  });
});

describe.runIf(hasPsql && Boolean(process.env.DATABASE_URL))('parley db shell on DATABASE_URL', () => {
  it('opens psql on that server with PARLEY_DB_SCHEMA as the search path', async () => {
    const schema = `t_db_shell_${randomBytes(5).toString('hex')}`;
    const env = { DATABASE_URL: process.env.DATABASE_URL, PARLEY_DB_SCHEMA: schema, PARLEY_DATA_DIR: await tempDir() };
    try {
      const shell = await runCli(['db', 'shell', '--', '-A', '-t'], env, 'show search_path;\n');
      expect(shell.code, shell.stderr).toBe(0);
      expect(shell.stdout.trim()).toBe(schema);
    } finally {
      const db = await openDatabase({
        databaseUrl: process.env.DATABASE_URL,
        schema: 'public',
        dataDir: undefined,
        maxConnections: 1,
      });
      await db.sql.unsafe(`drop schema if exists "${schema}" cascade`);
      await db.close();
    }
  });
});
