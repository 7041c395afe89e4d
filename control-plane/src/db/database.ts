/**
 * Opens Parley's database: the real Postgres of DATABASE_URL, or the embedded PGlite. Either way callers get the
 * same `postgres` (porsager) client, with `search_path` set to the configured schema.
 */
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import postgres from 'postgres';
import {
  embeddedSocketPath,
  startEmbeddedPostgres,
  EMBEDDED_MAX_CONNECTIONS,
  type EmbeddedPostgres,
} from './embedded-postgres.ts';

export type Sql = postgres.Sql;
export type TransactionSql = postgres.TransactionSql;
/** Anything that runs a query: the pool, a transaction or a reserved connection. */
export type Queryable = postgres.ISql<{}>;

export interface Database {
  readonly sql: Sql;
  readonly schema: string;
  /** Where the data lives, for logs; never contains a password. */
  readonly description: string;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  databaseUrl: string | undefined;
  schema: string;
  /** Embedded data directory; `undefined` with no databaseUrl keeps the embedded database in memory (tests). */
  dataDir: string | undefined;
  /** Connection pool size against a real server. */
  maxConnections?: number;
}

/** Pool size per process against a real Postgres: enough for concurrent requests, small enough for many replicas. */
export const DEFAULT_POOL_SIZE = 10;
/** Seconds an idle pooled connection is kept before it is closed. */
const IDLE_TIMEOUT_SECONDS = 30;
/**
 * Seconds a new connection may take: a database that does not answer is reported (503) after this, not after the
 * client's default of 30 s during which requests — a call being placed — would hang.
 */
export const CONNECT_TIMEOUT_SECONDS = 3;

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  let embedded: EmbeddedPostgres | undefined;
  let sql: Sql;
  const common = {
    onnotice: () => {},
    idle_timeout: IDLE_TIMEOUT_SECONDS,
    connect_timeout: CONNECT_TIMEOUT_SECONDS,
    connection: { search_path: options.schema, application_name: 'parley' },
  } as const;
  if (options.databaseUrl) {
    sql = postgres(options.databaseUrl, { ...common, max: options.maxConnections ?? DEFAULT_POOL_SIZE });
  } else {
    const socketDir = options.dataDir ?? (await makeTempDir());
    // PGlite's files belong to one process: a command run beside a running server talks to that server's socket.
    const running = options.dataDir ? await runningEmbeddedSocket(options.dataDir) : undefined;
    if (!running) embedded = await startEmbeddedPostgres(options.dataDir, socketDir);
    sql = postgres({
      ...common,
      path: running ?? embedded!.socketPath,
      username: 'postgres',
      database: 'postgres',
      max: EMBEDDED_MAX_CONNECTIONS,
    });
  }
  try {
    if (options.schema !== 'public') await sql.unsafe(`create schema if not exists "${options.schema}"`);
  } catch (error) {
    await sql.end({ timeout: 1 });
    await embedded?.stop();
    throw error;
  }
  return {
    sql,
    schema: options.schema,
    description: options.databaseUrl
      ? describeUrl(options.databaseUrl)
      : (embedded?.description ?? 'embedded PGlite of the running server'),
    async close() {
      await sql.end({ timeout: 5 });
      await embedded?.stop();
    },
  };
}

/** The socket of an embedded database served by another live process in this data directory, if any. */
export async function runningEmbeddedSocket(dataDir: string): Promise<string | undefined> {
  const socketPath = embeddedSocketPath(dataDir);
  return new Promise((resolve) => {
    const probe = net.connect(socketPath);
    probe.once('connect', () => {
      probe.destroy();
      resolve(socketPath);
    });
    probe.once('error', () => resolve(undefined));
  });
}

async function makeTempDir(): Promise<string> {
  const { mkdtemp } = await import('node:fs/promises');
  return mkdtemp(path.join(os.tmpdir(), 'parley-pg-'));
}

function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return 'postgres';
  }
}

/** Resolves once the database answers a query (readiness probes). */
export async function pingDatabase(sql: Queryable): Promise<void> {
  await sql`select 1`;
}

/**
 * Takes a transaction-level advisory lock on a text key (released at commit or rollback): work that must not run
 * twice at once across processes, such as the first-start bootstrap or one caller's placement, waits here in turn.
 */
export async function lockForTransaction(tx: Queryable, key: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtext(${key}))`;
}
