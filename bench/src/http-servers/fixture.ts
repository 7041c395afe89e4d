/**
 * The HTTP suites' data (rest, mcp): its own schema (`bench_<random>`) in the Postgres of DATABASE_URL, migrated, with
 * one organisation provisioned as production provisions it plus a few members, so GET /organisations does its real
 * work (organisation, owner and members), and as many agents as a suite asks for. `close()` drops the schema.
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

/** What the fixture holds besides the organisation and its team. */
export interface FixtureContents {
  /** Voice agents of the organisation, with instructions of a realistic length (the mcp suite lists them). */
  agents?: number;
}

/** A task of about 600 characters: what a real agent's instructions look like, so list bodies have a real size. */
const AGENT_TASK =
  'Greet the caller, ask for their order number and read back what was ordered. If they want to change it, ' +
  'confirm each change before making it. If they ask for a refund, collect the reason and promise a call back within ' +
  'one working day. Never promise a delivery date. Close by asking whether there is anything else, then say goodbye. '.repeat(
    2,
  );

export async function createFixture(databaseUrl: string, contents: FixtureContents = {}): Promise<RestFixture> {
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
      for (let i = 0; i < (contents.agents ?? 0); i++) {
        await tx`insert into agents (id, organisation_id, name, agent_type, agent_identity, agent_task, greeting_message)
                 values (${newId()}, ${created.organisationId}, ${`Order desk ${i + 1}`}, 'VOICE',
                         'You are the order desk of Bench Supplies.', ${AGENT_TASK}, 'Hello, Bench Supplies order desk!')`;
      }
    });
    return {
      schema,
      description: database.description,
      key: created.apiKey.key,
      organisationId: created.organisationId,
      close,
    };
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
