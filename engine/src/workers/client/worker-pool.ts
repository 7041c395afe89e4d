/**
 * The workers alive on the bus, as their heartbeats (`v1.worker.<kind>.<workerId>.heartbeat`) show them: what an
 * engine decides a call's language model from, and what the control plane's "no language model" warnings follow
 * (docs/architecture.md §2). Only the llm workers hold model settings and keys; everyone else learns from here that
 * a model is there, and which.
 */
import type { Bus, Subscription } from '../../bus/index.ts';
import {
  codecs,
  subjects,
  WORKER_DEAD_AFTER_MS,
  WORKER_HEARTBEAT_INTERVAL_MS,
  WORKER_KINDS,
  type WorkerKind,
} from '../../protocol/index.ts';

/**
 * How long after the watch begins the pool is taken to be complete, ms: every live worker beats once per interval,
 * so by then each has been heard (half an interval more absorbs a beat delayed by a busy event loop).
 */
export const POOL_SETTLE_MS = Math.round(1.5 * WORKER_HEARTBEAT_INTERVAL_MS);

export interface PoolWorker {
  readonly workerId: string;
  readonly kind: WorkerKind;
  /** Streams open on it. */
  readonly streams: number;
  /** Its providers, by name. */
  readonly providers: readonly string[];
  /** The models an llm worker runs; undefined from a worker older than the field (it ran only with a model). */
  readonly models: readonly string[] | undefined;
  /** It is stopping and takes no new stream. */
  readonly draining: boolean;
  /** When its last heartbeat came, epoch ms. */
  readonly heardAt: number;
}

export class WorkerPool {
  readonly #workers = new Map<string, PoolWorker>();
  readonly #heartbeats: Subscription;
  readonly #settledAt: number;
  /** Callers waiting for the pool to settle, woken early by a heartbeat that brings a language model. */
  readonly #waiting = new Set<() => void>();

  private constructor(bus: Bus) {
    this.#settledAt = Date.now() + POOL_SETTLE_MS;
    this.#heartbeats = bus.subscribe(subjects.allWorkerHeartbeats());
    const heartbeats = this.#heartbeats;
    void (async () => {
      for await (const message of heartbeats) {
        try {
          this.#hear(codecs.heartbeat.decode(message.data));
        } catch {
          // A malformed heartbeat is its sender's bug: that worker is simply not counted.
        }
      }
    })();
  }

  /** Starts following every worker's heartbeat on `bus`; stop() when done. */
  static watch(bus: Bus): WorkerPool {
    return new WorkerPool(bus);
  }

  /** The live workers (heard within WORKER_DEAD_AFTER_MS, as sessions judge a worker dead), of `kind` if given. */
  live(kind?: WorkerKind): PoolWorker[] {
    const now = Date.now();
    const live: PoolWorker[] = [];
    for (const [workerId, worker] of this.#workers) {
      if (now - worker.heardAt > WORKER_DEAD_AFTER_MS) this.#workers.delete(workerId);
      else if (kind === undefined || worker.kind === kind) live.push(worker);
    }
    return live;
  }

  /** The models the live llm workers that take streams run, each once; empty: no language model is available. */
  languageModels(): string[] {
    const models = new Set<string>();
    for (const worker of this.live('llm')) {
      if (worker.draining) continue;
      // A worker older than the field ran only with a model configured; its provider names (`host/model`) say which.
      for (const model of worker.models ?? worker.providers) models.add(model);
    }
    return [...models];
  }

  /**
   * Whether a language model is available, once the pool has settled: right after the watch began, a worker that
   * beat just before it has not been heard yet, so a "no" waits up to POOL_SETTLE_MS for its next beat.
   */
  async hasLanguageModel(): Promise<boolean> {
    if (this.languageModels().length > 0) return true;
    const wait = this.#settledAt - Date.now();
    if (wait > 0) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.#waiting.delete(done);
          resolve();
        };
        const timer = setTimeout(done, wait);
        this.#waiting.add(done);
      });
    }
    return this.languageModels().length > 0;
  }

  stop(): void {
    this.#heartbeats.unsubscribe();
    this.#wakeWaiting();
  }

  #hear(beat: ReturnType<typeof codecs.heartbeat.decode>): void {
    const kind = WORKER_KINDS.find((known) => known === beat.kind);
    if (!kind) return;
    const worker: PoolWorker = {
      workerId: beat.workerId,
      kind,
      streams: beat.streams,
      providers: beat.providers,
      models: beat.models,
      draining: beat.draining === true,
      heardAt: Date.now(),
    };
    this.#workers.set(beat.workerId, worker);
    if (kind === 'llm' && !worker.draining && (worker.models ?? worker.providers).length > 0) this.#wakeWaiting();
  }

  #wakeWaiting(): void {
    for (const wake of [...this.#waiting]) wake();
  }
}
