/**
 * Organisations as the API shows them (with owner and members), cached per process. Reading one takes three
 * queries and most of a request's time, while it changes rarely; every change made through Parley drops the copy
 * here at once and, over `v1.org.changed`, in every other process. The one-second lifetime bounds staleness when
 * a broadcast is lost or a change bypasses Parley (SQL by hand).
 */
import type { Bus, Subscription } from '@parley/engine/bus';
import { subjects } from '@parley/engine/protocol';
import { listenForBroadcasts } from '../bus/broadcasts.ts';
import type { Sql } from '../db/database.ts';
import type { OrganisationRecord } from './records.ts';
import { loadOrganisation, presentOrganisation } from './repository.ts';

/** How long a cached organisation is served without asking the database, if no change is announced. */
export const ORGANISATION_CACHE_TTL_MS = 1_000;
/** Bound on cached organisations per process; the oldest entry is evicted first. */
export const ORGANISATION_CACHE_MAX_ENTRIES = 5_000;

interface Entry {
  record: OrganisationRecord;
  expiresAt: number;
}

export class OrganisationCache {
  readonly #sql: Sql;
  readonly #bus: Bus;
  readonly #entries = new Map<string, Entry>();
  /** Loads in flight, shared by concurrent readers of one organisation. */
  readonly #loading = new Map<string, Promise<OrganisationRecord | undefined>>();
  /** Bumped on every change, so a load that started before a change never stores its stale result. */
  readonly #versions = new Map<string, number>();
  readonly #onError: (error: unknown) => void;
  readonly #ttlMs: number;
  #subscription: Subscription | undefined;

  /** @param ttlMs how long a copy is served without an announced change; default ORGANISATION_CACHE_TTL_MS */
  constructor(sql: Sql, bus: Bus, onError: (error: unknown) => void, ttlMs = ORGANISATION_CACHE_TTL_MS) {
    this.#sql = sql;
    this.#bus = bus;
    this.#onError = onError;
    this.#ttlMs = ttlMs;
  }

  listen(): void {
    if (this.#subscription) return;
    this.#subscription = listenForBroadcasts<{ organisationId: string }>(
      this.#bus,
      subjects.organisationChanged(),
      (notice) => this.forget(notice.organisationId),
      this.#onError,
    );
  }

  /** Stops listening for changes. */
  close(): void {
    this.#subscription?.unsubscribe();
    this.#entries.clear();
  }

  /** The organisation with owner and members, or undefined when it does not exist or was deleted. */
  async get(organisationId: string): Promise<OrganisationRecord | undefined> {
    const entry = this.#entries.get(organisationId);
    if (entry && entry.expiresAt > Date.now()) return entry.record;
    const pending = this.#loading.get(organisationId);
    if (pending) return pending;
    const version = this.#versions.get(organisationId) ?? 0;
    const loading = loadOrganisation(this.#sql, organisationId)
      .then((loaded) => {
        const record = loaded && presentOrganisation(loaded);
        if (record && (this.#versions.get(organisationId) ?? 0) === version) this.#remember(organisationId, record);
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
  async changed(organisationId: string): Promise<void> {
    this.forget(organisationId);
    this.#bus.publish(subjects.organisationChanged(), JSON.stringify({ organisationId }));
    await this.#bus.flush();
  }

  #remember(organisationId: string, record: OrganisationRecord): void {
    this.#entries.delete(organisationId);
    if (this.#entries.size >= ORGANISATION_CACHE_MAX_ENTRIES) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(organisationId, { record, expiresAt: Date.now() + this.#ttlMs });
  }
}
