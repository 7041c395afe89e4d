/**
 * Liveness and readiness for orchestrators. /healthz answers while the process serves HTTP; /readyz checks what a
 * request needs: the database answers a query and the bus is connected — reachable now, not merely open (a lost
 * NATS connection reconnects forever, and until it has, calls cannot be placed).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { pingDatabase } from '../db/database.ts';

/** A readiness probe must answer before the orchestrator's own timeout (commonly 1 s). */
const READINESS_QUERY_TIMEOUT_MS = 800;

const Check = Type.Object({ ok: Type.Boolean(), detail: Type.Optional(Type.String()) });

export default async function healthRoutes(app: FastifyInstance) {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['health'],
        summary: 'Liveness',
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
      config: { auth: 'public' },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['health'],
        summary: 'Readiness: database and bus reachable',
        security: [],
        response: {
          200: Type.Object({ status: Type.String(), database: Check, bus: Check }),
          503: Type.Object({ status: Type.String(), database: Check, bus: Check }),
        },
      },
      config: { auth: 'public' },
    },
    async (_request, reply) => {
      const database = await withTimeout(pingDatabase(app.sql), READINESS_QUERY_TIMEOUT_MS)
        .then(() => ({ ok: true }))
        .catch(() => ({ ok: false, detail: 'database did not answer' }));
      const bus = app.bus.isClosed
        ? { ok: false, detail: 'bus closed' }
        : app.bus.isConnected
          ? { ok: true, detail: app.bus.description }
          : { ok: false, detail: `bus disconnected, reconnecting to ${app.bus.description}` };
      const ready = database.ok && bus.ok;
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready', database, bus });
    },
  );
}

function withTimeout<T>(promise: PromiseLike<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timeout')), ms);
    Promise.resolve(promise).then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
