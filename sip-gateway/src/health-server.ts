/**
 * The gateway's own /healthz (docs/architecture.md §11): a small HTTP listener on SIP_HEALTH_PORT, since a gateway
 * runs as its own process in scale-out and an orchestrator probes each process. It answers what an operator needs
 * to see at a glance: active calls, legs pending, free RTP ports, SIP message counters. Beside it, /metrics: the
 * process's metrics for Prometheus (docs/architecture.md §19).
 */
import http from 'node:http';
import { serveMetrics } from '@parley/engine/metrics';
import type { SipGatewayHealth } from './gateway.ts';

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startHealthServer(
  host: string,
  port: number,
  health: () => SipGatewayHealth,
  metricsToken?: string,
): Promise<HealthServer> {
  const server = http.createServer((request, response) => {
    if (serveMetrics(request, response, metricsToken)) return;
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/healthz') {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(health()));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as { port: number }).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
