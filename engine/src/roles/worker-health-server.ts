/**
 * The workers' health port (WORKER_HEALTH_PORT, docs/architecture.md §19): /healthz (the workers this process runs
 * and their open streams) and /metrics, for an orchestrator's probe and a Prometheus scrape. Workers serve nothing
 * else over HTTP, so without it a worker process could be neither probed nor scraped.
 *
 * One listener per process however many worker roles it runs: the first role to start opens it, each adds its
 * worker, and the last to close shuts it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveMetrics } from '../metrics/index.ts';
import type { WorkerHandle } from '../workers/worker-host.ts';

export interface WorkerHealthConfig {
  /** WORKER_HEALTH_PORT; 0 picks a free port. */
  port: number;
  host?: string;
  /** PARLEY_METRICS_TOKEN: /metrics wants it as a bearer token when set. */
  metricsToken?: string;
}

interface Listener {
  server: http.Server;
  port: number;
  workers: Set<WorkerHandle>;
}

let shared: Promise<Listener> | undefined;

/** Adds a worker to the process's health listener (opening it first if need be); the answer takes it out. */
export async function joinWorkerHealth(
  config: WorkerHealthConfig,
  worker: WorkerHandle,
): Promise<{ port: number; leave(): Promise<void> }> {
  shared ??= listen(config);
  let listener: Listener;
  try {
    listener = await shared;
  } catch (error) {
    shared = undefined;
    throw error;
  }
  listener.workers.add(worker);
  return {
    port: listener.port,
    async leave() {
      listener.workers.delete(worker);
      if (listener.workers.size > 0) return;
      shared = undefined;
      await new Promise<void>((resolve) => {
        listener.server.close(() => resolve());
        listener.server.closeAllConnections();
      });
    },
  };
}

async function listen(config: WorkerHealthConfig): Promise<Listener> {
  const workers = new Set<WorkerHandle>();
  const server = http.createServer((request, response) => {
    if (serveMetrics(request, response, config.metricsToken)) return;
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/healthz') {
      response.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    const list = [...workers].map((w) => ({ kind: w.kind, workerId: w.workerId, streams: w.streamCount }));
    response
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ status: 'ok', workers: list }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { server, port: (server.address() as AddressInfo).port, workers };
}
