/**
 * The rest suite's data: its own schema (`bench_<random>`) in the Postgres of DATABASE_URL, migrated, with one
 * organisation provisioned as production provisions it plus a few members, so GET /organisations does its real
 * work (organisation, owner and members). `close()` drops the schema.
 */
import { randomBytes } from 'node:crypto';
import { openDatabase, type Database } from '@parley/control-plane';
import { migrate } from '@parley/control-plane';
import { newId } from '@parley/control-plane';
import { provisionOrganisation } from '@parley/control-plane';
import type { Role } from '@parley/control-plane';

/** Members besides the owner: a small team, what a typical organisation has. */
export const MEMBER_ROLES: readonly Role[] = ['ADMIN', 'EDITOR', 'EDITOR', 'VIEWER', 'VIEWER'];
/** Setup and teardown only: the app under test opens its own pool. */
const FIXTURE_POOL_SIZE = 2;

export interface RestFixture {
  readonly schema: string;
  /** Where the data lives, without any password. */
  readonly description: string;
  /** The owner's API key, with every customer scope. */
  readonly key: string;
  readonly organisationId: string;
  /** Drops the schema and closes the pool; safe to call twice. */
  close(): Promise<void>;
}

export async function createFixture(databaseUrl: string): Promise<RestFixture> {
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  const database = await openDatabase({ databaseUrl, schema, dataDir: undefined, maxConnections: FIXTURE_POOL_SIZE });
  const close = once(() => dropAndClose(database));
  try {
    await migrate(database.sql, schema);
    const created = await provisionOrganisation(database.sql, {
      name: 'Bench Organisation',
      ownerEmail: `owner-${schema}@bench.example`,
      ownerName: 'Bench Owner',
    });
    await database.sql.begin(async (tx) => {
      for (const [i, role] of MEMBER_ROLES.entries()) {
        const userId = newId();
        await tx`insert into users (id, name, email, is_email_verified)
                 values (${userId}, ${`Member ${i + 1}`}, ${`member-${i + 1}-${schema}@bench.example`}, true)`;
        await tx`insert into members (id, organisation_id, user_id, role)
                 values (${newId()}, ${created.organisationId}, ${userId}, ${role})`;
      }
    });
    return { schema, description: database.description, key: created.apiKey.key, organisationId: created.organisationId, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function dropAndClose(database: Database): Promise<void> {
  try {
    await database.sql.unsafe(`drop schema if exists "${database.schema}" cascade`);
  } finally {
    await database.close();
  }
}

function once(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => (running ??= fn());
}
