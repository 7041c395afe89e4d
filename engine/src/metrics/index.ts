/** The process's metrics (docs/architecture.md §19): its one registry and the /metrics endpoint's rules. */
export { metricsRegistry } from './registry.ts';
export { metricsAuthorised, renderMetrics, serveMetrics } from './metrics-endpoint.ts';
export { countLocalWorker, countWorkerPool, type WatchedPool } from './worker-metrics.ts';
