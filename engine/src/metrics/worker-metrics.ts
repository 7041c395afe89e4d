/**
 * The worker pool in metrics (docs/architecture.md §19). On a worker: the streams it has open (its queue depth —
 * each open stream is a session's work waiting on it). On an engine: the pool as the heartbeats show it, per kind —
 * how many workers are alive and how many streams they hold between them — which is what decides whether the next
 * call finds a worker.
 */
import { Gauge } from 'prom-client';
import { WORKER_KINDS, type WorkerKind } from '../protocol/index.ts';
import { metricsRegistry } from './registry.ts';

interface CountedWorker {
  readonly kind: WorkerKind;
  readonly streamCount: number;
}

const localWorkers = new Set<CountedWorker>();

new Gauge({
  name: 'parley_worker_open_streams',
  help: "Streams open on this process's workers, by kind (each a call's recogniser, model or voice).",
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
  collect() {
    this.reset();
    for (const worker of localWorkers) this.inc({ kind: worker.kind }, worker.streamCount);
  },
});

/** Counts a running worker in this process's metrics; the answer takes it out again (on stop). */
export function countLocalWorker(worker: CountedWorker): () => void {
  localWorkers.add(worker);
  return () => localWorkers.delete(worker);
}

/** A pool of workers as an engine sees it from their heartbeats (workers/client/worker-pool.ts). */
export interface WatchedPool {
  live(): readonly { readonly workerId: string; readonly kind: WorkerKind; readonly streams: number }[];
}

/** Pools watched by this process's engine roles (one per role; in tests several roles share a process). */
const pools = new Set<WatchedPool>();

/** Every live worker of the pools this process watches, each once (two roles on one bus see the same workers). */
function liveWorkers(): Map<string, { kind: WorkerKind; streams: number }> {
  const live = new Map<string, { kind: WorkerKind; streams: number }>();
  for (const pool of pools) for (const worker of pool.live()) live.set(worker.workerId, worker);
  return live;
}

new Gauge({
  name: 'parley_worker_pool_size',
  help: 'Workers alive on the bus as their heartbeats show them, by kind (seen by an engine).',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
  collect() {
    this.reset();
    for (const kind of WORKER_KINDS) this.set({ kind }, 0);
    for (const entry of liveWorkers().values()) this.inc({ kind: entry.kind });
  },
});

new Gauge({
  name: 'parley_worker_pool_streams',
  help: "Streams open across the pool's live workers, by kind: the pool's queue depth (seen by an engine).",
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
  collect() {
    this.reset();
    for (const kind of WORKER_KINDS) this.set({ kind }, 0);
    for (const entry of liveWorkers().values()) this.inc({ kind: entry.kind }, entry.streams);
  },
});

/** Counts `pool` in the pool gauges; the answer takes it out again (when the role closes). */
export function countWorkerPool(pool: WatchedPool): () => void {
  pools.add(pool);
  return () => pools.delete(pool);
}
