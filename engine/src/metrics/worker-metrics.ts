/**
 * The worker pool in metrics (docs/architecture.md §19). On a worker: the streams it has open (its queue depth —
 * each open stream is a session's work waiting on it). On an engine: the pool as the heartbeats show it, per kind —
 * how many workers are alive and how many streams they hold between them — which is what decides whether the next
 * call finds a worker.
 */
import { Gauge } from 'prom-client';
import type { Bus } from '../bus/index.ts';
import { codecs, subjects, WORKER_HEARTBEAT_INTERVAL_MS, WORKER_KINDS, type WorkerKind } from '../protocol/index.ts';
import { metricsRegistry } from './registry.ts';

/** A worker not heard from for this long has left the pool: three missed heartbeats, as the sessions judge it. */
const POOL_STALE_MS = 3 * WORKER_HEARTBEAT_INTERVAL_MS;

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

interface PoolEntry {
  kind: WorkerKind;
  streams: number;
  heardAt: number;
}

/** Pools watched by this process's engine roles (one per role; in tests several roles share a process). */
const pools = new Set<Map<string, PoolEntry>>();

/** Every live worker of the pools this process watches, each once (two roles on one bus see the same workers). */
function liveWorkers(): Map<string, PoolEntry> {
  const now = Date.now();
  const live = new Map<string, PoolEntry>();
  for (const pool of pools)
    for (const [workerId, entry] of pool) {
      if (now - entry.heardAt > POOL_STALE_MS) pool.delete(workerId);
      else live.set(workerId, entry);
    }
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

/** Follows every worker's heartbeat for the pool gauges; stop() when the role closes. */
export function watchWorkerPool(bus: Bus): { stop(): void } {
  const pool = new Map<string, PoolEntry>();
  pools.add(pool);
  const heartbeats = bus.subscribe(subjects.allWorkerHeartbeats());
  void (async () => {
    for await (const message of heartbeats) {
      try {
        const beat = codecs.heartbeat.decode(message.data);
        const kind = WORKER_KINDS.find((known) => known === beat.kind);
        if (kind) pool.set(beat.workerId, { kind, streams: beat.streams, heardAt: Date.now() });
      } catch {
        // A malformed heartbeat is the sender's bug; the sessions' own watch reports dead workers.
      }
    }
  })();
  return {
    stop() {
      heartbeats.unsubscribe();
      pools.delete(pool);
    },
  };
}
