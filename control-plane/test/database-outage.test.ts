/**
 * A Postgres outage as the API sees it: requests are answered 503 `database_unavailable` with Retry-After at once,
 * not 500 and not after the client's 30-second connect timeout, and the API recovers by itself when the database
 * is back. The outage is a TCP relay in front of the real Postgres that the test cuts and restores (stopping the
 * shared server would disturb every other test). Needs DATABASE_URL: embedded PGlite has no network to lose.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONNECT_TIMEOUT_SECONDS } from '../src/db/database.ts';
import { migrate, openDatabase } from '../src/index.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import type { TestDatabase } from './support/database.ts';
import { seedOrganisation, type SeededOrganisation } from './support/seed.ts';

const url = process.env.DATABASE_URL;

/** A relay to the real server that can be cut (every connection dropped, new ones refused) and restored. */
class Relay {
  readonly #target: URL;
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  port = 0;

  constructor(target: string) {
    this.#target = new URL(target);
  }

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(Number(this.#target.port || 5432), this.#target.hostname);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as { port: number }).port;
    this.#server = server;
  }

  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    await new Promise((resolve) => server?.close(resolve));
  }

  url(): string {
    const relayed = new URL(this.#target);
    relayed.hostname = '127.0.0.1';
    relayed.port = String(this.port);
    return relayed.toString();
  }
}

describe.skipIf(!url)('a database outage', () => {
  const relay = new Relay(url ?? 'postgres://localhost');
  let db: TestDatabase;
  let t: TestApp;
  let org: SeededOrganisation;

  beforeAll(async () => {
    await relay.open();
    const schema = `t_outage_${Date.now().toString(36)}`;
    const opened = await openDatabase({ databaseUrl: relay.url(), schema, dataDir: undefined, maxConnections: 2 });
    await migrate(opened.sql, opened.schema);
    db = {
      ...opened,
      url: relay.url(),
      close: async () => {
        await opened.sql.unsafe(`drop schema if exists "${schema}" cascade`);
        await opened.close();
      },
    };
    t = await startTestApp({ db });
    org = await seedOrganisation(db.sql, 'Outage');
  });
  afterAll(async () => {
    await t?.close();
    await db?.close();
    await relay.cut();
  });

  const calls = () =>
    t.call(org.key, { method: 'GET', url: `/api/v1/voice-sessions/organization/${org.organisationId}` });

  it('answers 503 with Retry-After at once while the database is gone, and recovers by itself', async () => {
    expect((await calls()).statusCode).toBe(200);

    await relay.cut();
    const started = Date.now();
    const during = await calls();
    expect(during.statusCode, during.body).toBe(503);
    expect(during.json()).toMatchObject({ success: false, code: 'database_unavailable' });
    expect(Number(during.headers['retry-after'])).toBeGreaterThan(0);
    // Bounded: at most one connect timeout, never the client's default 30 s.
    expect(Date.now() - started).toBeLessThan((CONNECT_TIMEOUT_SECONDS + 2) * 1_000);
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);

    await relay.open();
    // The pool opens fresh connections on the next requests.
    let after = await calls();
    for (let attempt = 0; after.statusCode !== 200 && attempt < 20; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      after = await calls();
    }
    expect(after.statusCode, after.body).toBe(200);
  });
});
