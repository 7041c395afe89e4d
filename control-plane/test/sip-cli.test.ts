/**
 * `parley sip`, run as a real process: an operator adds a trunk (its password from the environment, stored
 * encrypted), puts one of its numbers to work for an agent, lists both, and is told plainly what was wrong.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.ts';
import { migrate } from '../src/db/migrator.ts';
import { runCli, type Env } from './support/processes.ts';
import { seedAgent, seedOrganisation } from './support/seed.ts';

let env: Env;
let dataDir: string;
const schema = `t_sip_cli_${randomBytes(5).toString('hex')}`;

beforeAll(async () => {
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-sip-cli-'));
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

describe('parley sip', () => {
  it('adds a trunk and an INBOUND configuration, and lists them', async () => {
    const { organisationId, agentId } = await withDatabase(async (db) => {
      const org = await seedOrganisation(db.sql);
      return { organisationId: org.organisationId, agentId: await seedAgent(db.sql, org.organisationId, 'VOICE') };
    });
    const trunk = await runCli(
      [
        'sip',
        'trunk',
        '--org',
        organisationId,
        '--name',
        'Office PBX',
        '--host',
        'pbx.example.com',
        '--username',
        'parley',
        '--sources',
        '203.0.113.0/24,198.51.100.7',
        '--transport',
        'tcp',
        '--json',
      ],
      { ...env, PARLEY_SIP_TRUNK_PASSWORD: 'from-the-environment' },
    );
    expect(trunk.code, trunk.stderr).toBe(0);
    const trunkRecord = JSON.parse(trunk.stdout);
    expect(trunkRecord).toMatchObject({
      host: 'pbx.example.com',
      port: 5060,
      transport: 'tcp',
      username: 'parley',
      hasPassword: true,
      sourceAddresses: ['203.0.113.0/24', '198.51.100.7'],
    });
    expect(trunk.stdout).not.toContain('from-the-environment');
    const [stored] = await withDatabase(
      (db) =>
        db.sql<{ password_secret: string }[]>`select password_secret from sip_trunks where id = ${trunkRecord.id}`,
    );
    expect(stored!.password_secret).toMatch(/^enc:v1:/);

    const config = await runCli(
      [
        'sip',
        'config',
        '--org',
        organisationId,
        '--trunk',
        trunkRecord.id,
        '--type',
        'inbound',
        '--number',
        '+14155550177',
        '--agent',
        agentId,
        '--max-calls',
        '2',
        '--max-queue',
        '1',
        '--json',
      ],
      env,
    );
    expect(config.code, config.stderr).toBe(0);
    expect(JSON.parse(config.stdout)).toMatchObject({
      type: 'INBOUND',
      phoneNumber: '+14155550177',
      agentId,
      maxConcurrentCalls: 2,
      maxQueueSize: 1,
      sipTrunkId: trunkRecord.id,
    });

    const listed = await runCli(['sip', 'list', '--org', organisationId], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(trunkRecord.id);
    expect(listed.stdout).toMatch(/INBOUND\s+\+14155550177/);
  }, 120_000);

  it('says what is wrong, exit code 2', async () => {
    const organisationId = await withDatabase(async (db) => (await seedOrganisation(db.sql)).organisationId);
    const badHost = await runCli(['sip', 'trunk', '--org', organisationId, '--name', 'x', '--host', 'not a host'], env);
    expect(badHost.code).toBe(2);
    expect(badHost.stderr).toMatch(/host must be a host name or an IP address/);
    const badType = await runCli(
      [
        'sip',
        'config',
        '--org',
        organisationId,
        '--trunk',
        '0123456789abcdef01234567',
        '--type',
        'SIDEWAYS',
        '--number',
        '+14155550100',
      ],
      env,
    );
    expect(badType.code).toBe(2);
    expect(badType.stderr).toMatch(/--type must be INBOUND or OUTBOUND/);
    const unknownTrunk = await runCli(
      [
        'sip',
        'config',
        '--org',
        organisationId,
        '--trunk',
        '0123456789abcdef01234567',
        '--type',
        'OUTBOUND',
        '--number',
        '+14155550100',
      ],
      env,
    );
    expect(unknownTrunk.code).toBe(2);
    expect(unknownTrunk.stderr).toMatch(/sipTrunkId is not a SIP trunk of the organisation/);
  }, 120_000);
});
