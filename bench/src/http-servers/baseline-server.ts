/**
 * The baseline: a bare Fastify 5 server answering the same JSON bodies on the same paths, with no auth, no hooks,
 * no database. The body is kept as the parsed object and serialised on every request (Fastify's default
 * JSON.stringify, no response schema), so the baseline still does the per-request serialisation work the real
 * route does; what it lacks is exactly what the comparison measures: auth, hooks, validation and the database.
 */
import Fastify from 'fastify';
import type { BaselineRoute } from './server-messages.ts';

export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  close(): Promise<void>;
}

export async function startBaselineServer(routes: readonly BaselineRoute[]): Promise<RunningServer> {
  const app = Fastify({ logger: false });
  for (const route of routes) {
    const body = route.body;
    app.route({ method: route.method ?? 'GET', url: route.path, handler: async () => body });
  }
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, close: () => app.close() };
}
