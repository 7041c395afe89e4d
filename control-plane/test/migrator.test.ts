import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.ts';
import { migrate, MigrationError, readMigrations } from '../src/db/migrator.ts';
import { createTestDatabase, type TestDatabase } from './support/database.ts';

let dir: string;
let db: TestDatabase;

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-migrations-'));
  db = await createTestDatabase();
});
afterAll(async () => {
  for (const schema of created) await db.sql.unsafe(`drop schema if exists ${schema} cascade`);
  await db?.close();
  await fs.rm(dir, { recursive: true, force: true });
});

async function write(name: string, text: string) {
  await fs.writeFile(path.join(dir, name), text);
}

describe('migrations', () => {
  it('ship in order with unique versions', async () => {
    const migrations = await readMigrations();
    expect(migrations.length).toBeGreaterThan(0);
    expect(migrations.map((m) => m.version)).toEqual([...migrations.map((m) => m.version)].sort((a, b) => a - b));
  });

  it('apply pending files once, in order, and record them', async () => {
    await write('001_first.sql', 'create table m_first (id int primary key);');
    await write('002_second.sql', 'insert into m_first values (1), (2);');
    expect(await migrateIn(schemaName('m_one'))).toEqual([1, 2]);
    expect(await migrateIn(schemaName('m_one'))).toEqual([]);
    const rows = await db.sql.unsafe(
      `select version, name from ${schemaName('m_one')}.schema_migrations order by version`,
    );
    expect(rows).toEqual([
      { version: 1, name: 'first' },
      { version: 2, name: 'second' },
    ]);
  });

  it('roll back a failing migration whole and stop there', async () => {
    const failing = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-failing-'));
    await fs.writeFile(path.join(failing, '001_ok.sql'), 'create table m_ok (id int);');
    await fs.writeFile(path.join(failing, '002_bad.sql'), 'create table m_half (id int); select no_such_function();');
    const conn = await schemaConnection(schemaName('m_two'));
    await expect(migrate(conn.sql, schemaName('m_two'), failing)).rejects.toBeInstanceOf(MigrationError);
    const tables =
      await conn.sql`select table_name from information_schema.tables where table_schema = ${schemaName('m_two')} order by 1`;
    expect(tables.map((t) => t.table_name)).toEqual(['m_ok', 'schema_migrations']);
    await conn.close();
  });

  it('refuse to run when an applied migration was edited', async () => {
    const edited = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-edited-'));
    await fs.writeFile(path.join(edited, '001_a.sql'), 'create table m_a (id int);');
    const conn = await schemaConnection(schemaName('m_three'));
    await migrate(conn.sql, schemaName('m_three'), edited);
    await fs.writeFile(path.join(edited, '001_a.sql'), 'create table m_a (id bigint);');
    await expect(migrate(conn.sql, schemaName('m_three'), edited)).rejects.toThrow(/changed after it was applied/);
    await conn.close();
  });

  it('refuse file names without a version', async () => {
    const odd = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-odd-'));
    await fs.writeFile(path.join(odd, 'add_things.sql'), 'select 1;');
    await expect(readMigrations(odd)).rejects.toThrow(/001_name\.sql/);
  });

  it.runIf(Boolean(process.env.DATABASE_URL))(
    'never race: processes migrating together apply each file once',
    async () => {
      const racing = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-race-'));
      // Not idempotent on purpose: applied twice, the second `create table` would fail.
      await fs.writeFile(path.join(racing, '001_slow.sql'), 'select pg_sleep(0.3); create table m_race (id int);');
      await fs.writeFile(path.join(racing, '002_more.sql'), 'insert into m_race values (1);');
      const connections = await Promise.all([1, 2, 3, 4].map(() => schemaConnection(schemaName('m_race_schema'))));
      const results = await Promise.all(connections.map((c) => migrate(c.sql, schemaName('m_race_schema'), racing)));
      expect(results.flat().sort()).toEqual([1, 2]);
      const [{ count }] = (await db.sql.unsafe(
        `select count(*)::int as count from ${schemaName('m_race_schema')}.m_race`,
      )) as [{ count: number }];
      expect(count).toBe(1);
      await Promise.all(connections.map((c) => c.close()));
    },
  );
});

const created = new Set<string>();

/** Schemas of this run only: the test database's own name as prefix, so runs never meet. */
function schemaName(suffix: string): string {
  const name = `${db.schema}_${suffix}`;
  created.add(name);
  return name;
}

/** A connection whose search_path is `schema` on the test's database (a separate pool, like another process). */
async function schemaConnection(schema: string): Promise<Database> {
  if (!db.url) {
    // Embedded PGlite has one connection; share it, switching the schema for this test.
    await db.sql.unsafe(`create schema if not exists ${schema}; set search_path to ${schema}`);
    return {
      ...db,
      schema,
      close: async () => {
        await db.sql.unsafe(`set search_path to ${db.schema}`);
      },
    };
  }
  await db.sql.unsafe(`create schema if not exists ${schema}`);
  return openDatabase({ databaseUrl: db.url, schema, dataDir: undefined, maxConnections: 2 });
}

async function migrateIn(schema: string): Promise<number[]> {
  const conn = await schemaConnection(schema);
  try {
    return await migrate(conn.sql, schema, dir);
  } finally {
    await conn.close();
  }
}
