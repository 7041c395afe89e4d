/**
 * Resolves API keys to principals, with a per-process cache. Revoking a key, deactivating a user or removing a
 * member broadcasts `v1.auth.revoked`; every process drops the matching cache entries as the message arrives, so a
 * revocation bites everywhere at once. The cache's short time-to-live is the safety net for a lost broadcast.
 */
import type { Bus } from '@parley/engine/bus';
import { subjects } from '@parley/engine/protocol';
import { BroadcastCache } from '../bus/broadcast-cache.ts';
import type { Sql } from '../db/database.ts';
import { hashApiKey, hashesEqual, parseApiKey } from './api-key.ts';
import type { Principal, Revocation } from './principal.ts';
import { findPrincipalKey, touchKeyLastUsed } from './api-key-repository.ts';
import type { Role, Scope } from './scopes.ts';

/**
 * How long a resolved key is trusted without asking the database again. One second keeps the spec's promise (a
 * revocation bites within a second everywhere) even for a broadcast that never arrived, e.g. a `parley keys revoke`
 * run beside an embedded server, at the cost of one indexed read per key per second per process.
 */
export const KEY_CACHE_TTL_MS = 1_000;
/** Bound on cached keys per process; the oldest entry is evicted first. */
export const KEY_CACHE_MAX_ENTRIES = 10_000;
/** last_used_at is written at most this often per key, so busy keys do not turn every read into a write. */
export const LAST_USED_RESOLUTION_MS = 60_000;

interface CacheEntry {
  principal: Principal;
  hash: string;
  lastUsedWrittenAt: number;
}

export class KeyStore {
  readonly #sql: Sql;
  /** Resolved keys by prefix. */
  readonly #cache: BroadcastCache<CacheEntry, Revocation>;
  readonly #onError: (error: unknown) => void;
  /** lastUsedAt writes not yet answered: close() waits for them, so none outlives the database it writes to. */
  readonly #touches = new Set<Promise<void>>();

  /** @param ttlMs how long a resolved key is trusted without a revocation; default KEY_CACHE_TTL_MS */
  constructor(sql: Sql, bus: Bus, onError: (error: unknown) => void, ttlMs = KEY_CACHE_TTL_MS) {
    this.#sql = sql;
    this.#onError = onError;
    this.#cache = new BroadcastCache({
      bus,
      subject: subjects.authRevoked(),
      ttlMs,
      maxEntries: KEY_CACHE_MAX_ENTRIES,
      onNotice: (revocation) => this.forget(revocation),
      onError,
    });
  }

  /** Starts listening for revocations from other processes. */
  listen(): void {
    this.#cache.listen();
  }

  /** Stops listening for revocations; resolves once the lastUsedAt writes in flight have ended. */
  async close(): Promise<void> {
    this.#cache.close();
    await Promise.allSettled([...this.#touches]);
  }

  /** The principal of a valid key value, or undefined for anything that must get a 401. */
  async authenticate(value: string): Promise<Principal | undefined> {
    const parsed = parseApiKey(value);
    if (!parsed) return undefined;
    const hash = hashApiKey(value);
    const now = Date.now();
    let entry = this.#cache.get(parsed.prefix);
    if (!entry) {
      entry = await this.#load(parsed.prefix);
      if (!entry) return undefined;
      this.#cache.set(parsed.prefix, entry);
    }
    if (!hashesEqual(entry.hash, hash)) return undefined;
    if (now - entry.lastUsedWrittenAt >= LAST_USED_RESOLUTION_MS) {
      entry.lastUsedWrittenAt = now;
      const touch = touchKeyLastUsed(this.#sql, entry.principal.keyId)
        .catch(this.#onError)
        .finally(() => this.#touches.delete(touch));
      this.#touches.add(touch);
    }
    return entry.principal;
  }

  /** Drops matching cache entries in this process only. */
  forget(revocation: Revocation): void {
    for (const [prefix, { principal }] of this.#cache.entries()) {
      if (matches(principal, revocation)) this.#cache.delete(prefix);
    }
  }

  /** Drops matching entries here and tells every other process to do the same. */
  revoke(revocation: Revocation): Promise<void> {
    return this.#cache.announce(revocation);
  }

  async #load(prefix: string): Promise<CacheEntry | undefined> {
    const row = await findPrincipalKey(this.#sql, prefix);
    if (!row || row.revoked_at) return undefined;
    // A key stops working when its owner leaves the organisation: the owner counts as a member without a row.
    const role: Role | null = row.owner_id === row.user_id ? 'OWNER' : row.role;
    if (!role) return undefined;
    return {
      hash: row.key_hash,
      lastUsedWrittenAt: row.last_used_at?.getTime() ?? 0,
      principal: {
        keyId: row.id,
        keyName: row.name,
        kind: row.kind,
        organisationId: row.organisation_id,
        userId: row.user_id,
        role,
        scopes: row.scopes as Scope[],
        agentId: row.agent_id,
        features: row.features,
        audience: row.audience,
      },
    };
  }
}

function matches(principal: Principal, revocation: Revocation): boolean {
  if ('keyId' in revocation) return principal.keyId === revocation.keyId;
  if ('userId' in revocation) {
    return (
      principal.userId === revocation.userId &&
      (revocation.organisationId === undefined || principal.organisationId === revocation.organisationId)
    );
  }
  return principal.organisationId === revocation.organisationId;
}
