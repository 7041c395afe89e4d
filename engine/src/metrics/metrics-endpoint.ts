/**
 * GET /metrics for the process's plain Node HTTP listeners (the engine's media server, the workers' and the SIP
 * gateway's health ports) and the access rule every /metrics shares, the control plane's included
 * (docs/architecture.md §19): with PARLEY_METRICS_TOKEN set a scrape must send `Authorization: Bearer <token>`;
 * without it /metrics is open, for a private network where only the scraper reaches these ports.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { metricsRegistry } from './registry.ts';

/** Whether an Authorization header value may read the metrics; `token` undefined: anyone may. */
export function metricsAuthorised(authorization: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true;
  const match = /^Bearer (.+)$/i.exec(authorization ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1]!.trim());
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The metrics in Prometheus's text format, with its content type. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}

/**
 * Answers the request when it is GET /metrics (the body, or 401 without the token); answers false, untouched,
 * for any other request, which the listener serves as before.
 */
export function serveMetrics(request: IncomingMessage, response: ServerResponse, token: string | undefined): boolean {
  const path = (request.url ?? '').split('?')[0];
  if (request.method !== 'GET' || path !== '/metrics') return false;
  if (!metricsAuthorised(request.headers.authorization, token)) {
    response
      .writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="metrics"' })
      .end('metrics need Authorization: Bearer <PARLEY_METRICS_TOKEN>\n');
    return true;
  }
  renderMetrics().then(
    ({ contentType, body }) => response.writeHead(200, { 'content-type': contentType }).end(body),
    () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics could not be collected\n'),
  );
  return true;
}
