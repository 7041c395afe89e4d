/**
 * A database of a test file's own: a fresh schema in the Postgres of DATABASE_URL (dropped afterwards), or, with no
 * DATABASE_URL, an in-memory embedded PGlite. Either way migrations are applied, so files run in parallel.
 */
import { randomBytes } from 'node:crypto';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { migrate } from '../../src/db/migrator.ts';

export interface TestDatabase extends Database {
  /** The DATABASE_URL used, or undefined for embedded. */
  readonly url: string | undefined;
}

export const requireAll = process.env.PARLEY_REQUIRE_ALL === '1';

export async function createTestDatabase(): Promise<TestDatabase> {
  const url = process.env.DATABASE_URL || undefined;
  if (!url && requireAll) throw new Error('DATABASE_URL is required when PARLEY_REQUIRE_ALL=1');
  const schema = url ? `t_${randomBytes(6).toString('hex')}` : 'public';
  const db = await openDatabase({ databaseUrl: url, schema, dataDir: undefined, maxConnections: 4 });
  await migrate(db.sql, db.schema);
  return {
    ...db,
    url,
    sql: db.sql,
    schema: db.schema,
    description: db.description,
    async close() {
      if (url) await db.sql.unsafe(`drop schema if exists "${schema}" cascade`);
      await db.close();
    },
  };
}
