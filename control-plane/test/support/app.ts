/**
 * A control-plane app on a test database and bus, exercised through fastify.inject (real routing, hooks,
 * validation and serialisation; no sockets).
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Bus } from '@parley/engine/bus';
import { buildApp } from '../../src/app.ts';
import { KeyStore } from '../../src/auth/key-store.ts';
import { RATE_LIMIT_DEFAULTS, type RateLimitName } from '../../src/rate-limits.ts';
import { createTestBus } from './bus.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';

export interface TestApp {
  app: FastifyInstance;
  db: TestDatabase;
  bus: Bus;
  keys: KeyStore;
  /** An injected request with `Authorization: Bearer <key>` when a key is given. */
  call(key: string | undefined, options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export const PUBLIC_URL = 'http://parley.test';

export async function startTestApp(options: { rateLimits?: Partial<Record<RateLimitName, number>>; db?: TestDatabase } = {}): Promise<TestApp> {
  const db = options.db ?? (await createTestDatabase());
  const bus = await createTestBus();
  const keys = new KeyStore(db.sql, bus, (error) => { throw error; });
  keys.listen();
  const app = await buildApp({
    config: { publicUrl: PUBLIC_URL, rateLimits: { ...RATE_LIMIT_DEFAULTS, ...options.rateLimits } },
    sql: db.sql,
    bus,
    keys,
    logger: false,
  });
  await app.ready();
  return {
    app,
    db,
    bus,
    keys,
    call(key, request) {
      const headers = { ...(request.headers ?? {}), ...(key ? { authorization: `Bearer ${key}` } : {}) };
      return app.inject({ ...request, headers });
    },
    async close() {
      await app.close();
      await bus.close();
      if (!options.db) await db.close();
    },
  };
}
