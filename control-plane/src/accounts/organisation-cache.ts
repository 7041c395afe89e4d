/**
 * Organisations as the API shows them (with owner and members), cached per process. Reading one takes three
 * queries and most of a request's time, while it changes rarely; every change made through Parley drops the copy
 * here at once and, over `v1.org.changed`, in every other process. The one-second lifetime bounds staleness when
 * a broadcast is lost or a change bypasses Parley (SQL by hand).
 */
import type { Bus } from '@parley/engine/bus';
import { subjects } from '@parley/engine/protocol';
import { BroadcastCache } from '../bus/broadcast-cache.ts';
import type { Sql } from '../db/database.ts';
import type { OrganisationRecord } from './records.ts';
import { loadOrganisation, presentOrganisation } from './repository.ts';

/** How long a cached organisation is served without asking the database, if no change is announced. */
export const ORGANISATION_CACHE_TTL_MS = 1_000;
/** Bound on cached organisations per process; the oldest entry is evicted first. */
export const ORGANISATION_CACHE_MAX_ENTRIES = 5_000;

export class OrganisationCache {
  readonly #sql: Sql;
  readonly #entries: BroadcastCache<OrganisationRecord, { organisationId: string }>;
  /** Loads in flight, shared by concurrent readers of one organisation. */
  readonly #loading = new Map<string, Promise<OrganisationRecord | undefined>>();
  /** Bumped on every change, so a load that started before a change never stores its stale result. */
  readonly #versions = new Map<string, number>();

  /** @param ttlMs how long a copy is served without an announced change; default ORGANISATION_CACHE_TTL_MS */
  constructor(sql: Sql, bus: Bus, onError: (error: unknown) => void, ttlMs = ORGANISATION_CACHE_TTL_MS) {
    this.#sql = sql;
    this.#entries = new BroadcastCache({
      bus,
      subject: subjects.organisationChanged(),
      ttlMs,
      maxEntries: ORGANISATION_CACHE_MAX_ENTRIES,
      onNotice: (notice) => this.forget(notice.organisationId),
      onError,
    });
  }

  listen(): void {
    this.#entries.listen();
  }

  /** Stops listening for changes. */
  close(): void {
    this.#entries.close();
  }

  /** The organisation with owner and members, or undefined when it does not exist or was deleted. */
  async get(organisationId: string): Promise<OrganisationRecord | undefined> {
    const cached = this.#entries.get(organisationId);
    if (cached) return cached;
    const pending = this.#loading.get(organisationId);
    if (pending) return pending;
    const version = this.#versions.get(organisationId) ?? 0;
    const loading = loadOrganisation(this.#sql, organisationId)
      .then((loaded) => {
        const record = loaded && presentOrganisation(loaded);
        if (record && (this.#versions.get(organisationId) ?? 0) === version) this.#entries.set(organisationId, record);
        return record;
      })
      .finally(() => this.#loading.delete(organisationId));
    this.#loading.set(organisationId, loading);
    return loading;
  }

  /** Drops this process's copy only. */
  forget(organisationId: string): void {
    this.#entries.delete(organisationId);
    this.#loading.delete(organisationId);
    this.#versions.set(organisationId, (this.#versions.get(organisationId) ?? 0) + 1);
    if (this.#versions.size > ORGANISATION_CACHE_MAX_ENTRIES) {
      const oldest = this.#versions.keys().next();
      if (!oldest.done && oldest.value !== organisationId) this.#versions.delete(oldest.value);
    }
  }

  /** Announces a change: drops the copy here at once and in every other process. */
  changed(organisationId: string): Promise<void> {
    return this.#entries.announce({ organisationId });
  }
}
