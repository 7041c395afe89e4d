/**
 * Embedded Postgres: PGlite (Postgres compiled to WebAssembly) served on a local Unix socket by pglite-socket, so
 * the embedded mode uses the same `postgres` client, SQL and migrations as a real server (docs/architecture.md §2).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  /** Unix socket path for the `postgres` client's `path` option; psql reaches it as `psql -h <its directory>`. */
  readonly socketPath: string;
  readonly description: string;
  stop(): Promise<void>;
}

/**
 * PGlite runs one statement at a time; the socket server multiplexes connections onto it, but a transaction on one
 * connection would then see statements of another. One connection keeps transactions whole.
 */
export const EMBEDDED_MAX_CONNECTIONS = 1;
/** Connections the socket accepts beyond the server's own pool: `parley` commands run beside it, and their probes. */
const COMMAND_CONNECTIONS = 8;

/**
 * The number in the socket's name. libpq clients (psql among them) look for `<dir>/.s.PGSQL.<port>`, and 5432 is
 * their default port, so `psql -h <data dir>` finds the embedded database with nothing else said. Nothing listens on
 * TCP: the number only names the file.
 */
export const EMBEDDED_SOCKET_PORT = 5432;

export function embeddedSocketPath(socketDir: string): string {
  return path.join(socketDir, `.s.PGSQL.${EMBEDDED_SOCKET_PORT}`);
}

/** Where PGlite keeps its files under a data directory. */
export function embeddedFilesPath(dataDir: string): string {
  return path.join(dataDir, 'pgdata');
}

/**
 * Starts PGlite with its data under `dataDir` (or in memory when `dataDir` is undefined, for tests) and serves it.
 */
export async function startEmbeddedPostgres(dataDir: string | undefined, socketDir: string): Promise<EmbeddedPostgres> {
  const pgDataDir = dataDir === undefined ? undefined : embeddedFilesPath(dataDir);
  if (pgDataDir) await fs.mkdir(pgDataDir, { recursive: true, mode: 0o700 });
  await fs.mkdir(socketDir, { recursive: true, mode: 0o700 });
  // pgvector ships with PGlite: the embedded database can keep embeddings for hybrid knowledge search (§14).
  const db = await PGlite.create({ ...(pgDataDir ? { dataDir: pgDataDir } : {}), extensions: { vector } });
  const socketPath = embeddedSocketPath(socketDir);
  // A socket file left by a process that died would make listen() fail with EADDRINUSE.
  await fs.rm(socketPath, { force: true });
  // Room beside the server's own pool for `parley` commands and the liveness probes they open first: a connection
  // over the limit is refused with "Too many connections" (the client sees EPIPE), and a closed one is only counted
  // out on the next tick. While one connection is in a transaction the socket server runs only that connection's
  // statements, so a command beside the server never lands inside the server's transaction.
  const server = new PGLiteSocketServer({
    db,
    path: socketPath,
    maxConnections: EMBEDDED_MAX_CONNECTIONS + COMMAND_CONNECTIONS,
  });
  await server.start();
  let stopped = false;
  return {
    socketPath,
    description: pgDataDir ? `embedded PGlite at ${pgDataDir}` : 'embedded PGlite in memory',
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
      await db.close();
      await fs.rm(socketPath, { force: true });
    },
  };
}
