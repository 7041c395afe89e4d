/**
 * The app under test, built as production builds it (control-plane/src/server.ts) minus the jobs: the real
 * database pool, the bus, the key store and `buildApp`, serving over a real socket on 127.0.0.1.
 */
import type { FastifyInstance } from 'fastify';
import { connectBus } from '@parley/engine/bus';
import { buildApp } from '@parley/control-plane';
import { KeyStore } from '@parley/control-plane';
import { openDatabase } from '@parley/control-plane';
import { RATE_LIMIT_DEFAULTS } from '@parley/control-plane';
import type { RunningServer } from './baseline-server.ts';
import type { ServerSpec } from './server-messages.ts';

export async function startRealServer(spec: Extract<ServerSpec, { kind: 'real' }>): Promise<RunningServer> {
  const database = await openDatabase({
    databaseUrl: spec.databaseUrl,
    schema: spec.schema,
    dataDir: undefined,
    maxConnections: spec.poolSize,
  });
  const closers: (() => Promise<unknown>)[] = [() => database.close()];
  const closeAll = async () => {
    for (const close of closers.reverse())
      await close().catch((error: unknown) => console.error('bench server: close failed', error));
  };
  try {
    const bus = await connectBus(spec.natsUrl, 'parley-bench-rest');
    closers.push(() => bus.close());
    const keys = new KeyStore(database.sql, bus, (error) => console.error('bench server: key store', error));
    keys.listen();
    const app: FastifyInstance = await buildApp({
      config: { publicUrl: 'http://127.0.0.1', rateLimits: { ...RATE_LIMIT_DEFAULTS, ...spec.rateLimits } },
      sql: database.sql,
      bus,
      keys,
      logger: false,
    });
    closers.push(() => app.close());
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    return { url, close: closeAll };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
