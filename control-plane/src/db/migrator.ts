/**
 * Numbered SQL migrations (`migrations/NNN_name.sql`), applied in order under an advisory lock so that processes
 * starting together never race, and recorded with a checksum so an edited, already-applied file is caught.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sql } from './database.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));
const FILE_PATTERN = /^(\d{3,})_([a-z0-9_]+)\.sql$/;

export interface Migration {
  version: number;
  name: string;
  sql: string;
  checksum: string;
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

export async function readMigrations(dir: string = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const match = FILE_PATTERN.exec(file);
    if (!match) throw new MigrationError(`migration file name must look like 001_name.sql: ${file}`);
    const text = await fs.readFile(path.join(dir, file), 'utf8');
    migrations.push({
      version: Number(match[1]),
      name: match[2]!,
      sql: text,
      checksum: createHash('sha256').update(text).digest('hex'),
    });
  }
  const versions = new Set(migrations.map((m) => m.version));
  if (versions.size !== migrations.length) throw new MigrationError('two migration files share a version number');
  return migrations;
}

/**
 * Applies every pending migration; returns the versions applied by this call. Each migration runs in its own
 * transaction on one reserved connection that also holds the lock (session-level advisory locks belong to a
 * connection, and the embedded database has only one).
 */
export async function migrate(sql: Sql, schema: string, dir: string = MIGRATIONS_DIR): Promise<number[]> {
  const migrations = await readMigrations(dir);
  const conn = await sql.reserve();
  const lockName = `parley.migrate.${schema}`;
  try {
    await conn`select pg_advisory_lock(hashtext(${lockName}))`;
    await conn`create table if not exists schema_migrations (
      version integer primary key,
      name text not null,
      checksum char(64) not null,
      applied_at timestamptz not null default now()
    )`;
    const applied = new Map(
      (await conn<{ version: number; checksum: string }[]>`select version, checksum from schema_migrations`).map(
        (row) => [row.version, row.checksum.trim()],
      ),
    );
    const done: number[] = [];
    for (const migration of migrations) {
      const checksum = applied.get(migration.version);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) {
          throw new MigrationError(`migration ${migration.version}_${migration.name} was changed after it was applied`);
        }
        continue;
      }
      await conn.unsafe('begin');
      try {
        await conn.unsafe(migration.sql);
        await conn`insert into schema_migrations (version, name, checksum)
                   values (${migration.version}, ${migration.name}, ${migration.checksum})`;
        await conn.unsafe('commit');
      } catch (error) {
        await conn.unsafe('rollback');
        throw new MigrationError(`migration ${migration.version}_${migration.name} failed`, { cause: error });
      }
      done.push(migration.version);
    }
    return done;
  } finally {
    await conn`select pg_advisory_unlock(hashtext(${lockName}))`.catch(() => {});
    conn.release();
  }
}
