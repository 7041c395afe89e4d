/**
 * A per-process cache whose entries every control-plane process drops together: a change made anywhere is announced
 * on a broadcast subject, and each process forgets what the notice names as it arrives. Entries also expire after
 * `ttlMs`, the safety net for a lost notice or a change made past Parley (SQL by hand). Bounded: the oldest entry
 * goes first. The API-key store and the organisation cache are its two users.
 */
import type { Bus, Subscription } from '@parley/engine/bus';
import { listenForBroadcasts } from './broadcasts.ts';

export interface BroadcastCacheOptions<Notice> {
  bus: Bus;
  /** Where changes are announced. */
  subject: string;
  /** How long an entry is served without an announced change, ms. */
  ttlMs: number;
  /** Bound on entries per process. */
  maxEntries: number;
  /** What a notice (from this process or another) drops: the cache's owner decides, with `delete`. */
  onNotice: (notice: Notice) => void;
  /** A malformed notice: reported, never fatal. */
  onError: (error: unknown) => void;
}

interface Entry<V> {
  value: V;
  expiresAt: number;
}

export class BroadcastCache<V, Notice> {
  readonly #options: BroadcastCacheOptions<Notice>;
  readonly #entries = new Map<string, Entry<V>>();
  #subscription: Subscription | undefined;

  constructor(options: BroadcastCacheOptions<Notice>) {
    this.#options = options;
  }

  /** Starts acting on other processes' notices. */
  listen(): void {
    if (this.#subscription) return;
    const { bus, subject, onNotice, onError } = this.#options;
    this.#subscription = listenForBroadcasts<Notice>(bus, subject, onNotice, onError);
  }

  /** Stops listening and empties the cache. */
  close(): void {
    this.#subscription?.unsubscribe();
    this.#subscription = undefined;
    this.#entries.clear();
  }

  /** The entry while it is fresh. */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > Date.now()) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    if (this.#entries.size >= this.#options.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, { value, expiresAt: Date.now() + this.#options.ttlMs });
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  /** Every cached entry, fresh or not, for a notice that names entries by what they hold. */
  entries(): IterableIterator<[string, V]> {
    const entries = this.#entries.entries();
    return (function* () {
      for (const [key, entry] of entries) yield [key, entry.value] as [string, V];
    })();
  }

  /** Acts on a change here at once, and announces it to every other process. */
  async announce(notice: Notice): Promise<void> {
    this.#options.onNotice(notice);
    this.#options.bus.publish(this.#options.subject, JSON.stringify(notice));
    await this.#options.bus.flush();
  }
}
