/**
 * Every trunk registration of a gateway (docs/architecture.md §11 "Registration"). The control plane owns the
 * list — active trunks with `register` on, their passwords decrypted — and the gateway asks for it
 * (`v1.sip.registrations.list`) at start, whenever the control plane says it may have changed
 * (`v1.sip.registrations.changed`), and every `resyncMs` in case such a word was missed. A trunk that appears is
 * registered; one that goes is unregistered (Expires: 0); one whose registrar or credentials changed is
 * unregistered and registered anew. Each change of state is published (`v1.sip.registrations.state`) for the
 * control plane to show, and read at /healthz.
 */
import type { Bus, Subscription } from '@parley/engine/bus';
import { sipCodecs, subjects, type SipRegistrationTarget } from '@parley/engine/protocol';
import type { GatewayLog } from '../calls/gateway-context.ts';
import type { UserAgent } from '../sip/user-agent.ts';
import {
  REGISTRATION_RETRY,
  TrunkRegistration,
  type RegistrationRetry,
  type RegistrationSnapshot,
} from './trunk-registration.ts';

/** How often the list is asked for again without being told, ms. */
export const REGISTRATIONS_RESYNC_MS = 60_000;
/** How soon a list that could not be had is asked for again, ms (the control plane may be starting); doubling. */
const LIST_RETRY_MS = 5_000;
const LIST_TIMEOUT_MS = 5_000;

export interface RegistrationOptions {
  retry?: RegistrationRetry;
  resyncMs?: number;
  listRetryMs?: number;
}

const sameTarget = (a: SipRegistrationTarget, b: SipRegistrationTarget) =>
  a.host === b.host &&
  a.port === b.port &&
  a.transport === b.transport &&
  a.username === b.username &&
  a.password === b.password &&
  a.expiresS === b.expiresS;

export class TrunkRegistrations {
  readonly #ua: UserAgent;
  readonly #bus: Bus;
  readonly #gatewayId: string;
  readonly #log: GatewayLog;
  readonly #options: Required<RegistrationOptions>;
  readonly #byTrunk = new Map<string, TrunkRegistration>();
  #changed: Subscription | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** Syncs run one after another, never interleaved. */
  #syncing: Promise<void> = Promise.resolve();
  #closed = false;
  /** Lists asked for in vain in a row: the retry backs off, and only the first failure is logged. */
  #listFailures = 0;

  constructor(ua: UserAgent, bus: Bus, gatewayId: string, log: GatewayLog, options: RegistrationOptions = {}) {
    this.#ua = ua;
    this.#bus = bus;
    this.#gatewayId = gatewayId;
    this.#log = log;
    this.#options = {
      retry: options.retry ?? REGISTRATION_RETRY,
      resyncMs: options.resyncMs ?? REGISTRATIONS_RESYNC_MS,
      listRetryMs: options.listRetryMs ?? LIST_RETRY_MS,
    };
  }

  start(): this {
    const changed = this.#bus.subscribe(subjects.sipRegistrationsChanged());
    this.#changed = changed;
    void (async () => {
      for await (const _ of changed) this.sync();
    })().catch(() => {});
    this.sync();
    return this;
  }

  get snapshots(): RegistrationSnapshot[] {
    return [...this.#byTrunk.values()].map((registration) => registration.snapshot);
  }

  /** Asks for the list and applies it (queued behind a sync under way). */
  sync(): Promise<void> {
    this.#syncing = this.#syncing.then(() => this.#sync());
    return this.#syncing;
  }

  async #sync(): Promise<void> {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    let targets: SipRegistrationTarget[];
    try {
      const reply = await this.#bus.request(
        subjects.sipRegistrations(),
        sipCodecs.registrationsRequest.encode({ gatewayId: this.#gatewayId }),
        { timeoutMs: LIST_TIMEOUT_MS },
      );
      targets = sipCodecs.registrationsReply.decode(reply.data).registrations;
    } catch (error) {
      // Keep what is registered; ask again soon, then less often (a gateway without a control plane stays quiet).
      if (this.#listFailures === 0) this.#log('sip registrations not listed', { error: String(error) }, 'warn');
      this.#schedule(Math.min(this.#options.listRetryMs * 2 ** this.#listFailures, this.#options.resyncMs));
      this.#listFailures += 1;
      return;
    }
    this.#listFailures = 0;
    if (this.#closed) return;
    const wanted = new Map(targets.map((target) => [target.trunkId, target]));
    const leaving: Promise<void>[] = [];
    for (const [trunkId, registration] of this.#byTrunk) {
      const target = wanted.get(trunkId);
      if (target && sameTarget(target, registration.target)) continue;
      this.#byTrunk.delete(trunkId);
      leaving.push(registration.unregister());
    }
    await Promise.all(leaving);
    for (const target of wanted.values()) {
      if (this.#byTrunk.has(target.trunkId) || this.#closed) continue;
      const registration = new TrunkRegistration(this.#ua, target, (s) => this.#report(s), this.#options.retry);
      this.#byTrunk.set(target.trunkId, registration);
      registration.start();
    }
    this.#schedule(this.#options.resyncMs);
  }

  #schedule(ms: number): void {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.sync(), ms).unref();
  }

  #report(snapshot: RegistrationSnapshot): void {
    // A trunk that refuses us is a degradation: its inbound calls stop arriving (docs/architecture.md §19).
    this.#log(
      'sip registration',
      {
        trunkId: snapshot.trunkId,
        state: snapshot.state,
        sipStatus: snapshot.sipStatus,
        expiresAt: snapshot.expiresAt,
      },
      snapshot.state === 'failing' ? 'warn' : 'info',
    );
    this.#bus.publish(
      subjects.sipRegistrationState(),
      sipCodecs.registrationState.encode({
        gatewayId: this.#gatewayId,
        trunkId: snapshot.trunkId,
        organisationId: snapshot.organisationId,
        state: snapshot.state,
        at: snapshot.at,
        ...(snapshot.sipStatus !== undefined && { sipStatus: snapshot.sipStatus }),
        ...(snapshot.reason !== undefined && { reason: snapshot.reason.slice(0, 200) }),
        ...(snapshot.expiresAt !== undefined && { expiresAt: snapshot.expiresAt }),
      }),
    );
  }

  /** Unregisters every trunk (bounded wait each) and stops listening. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#changed?.unsubscribe();
    // A sync under way sees #closed and starts nothing more; what is registered now is all there is to undo.
    await Promise.all([...this.#byTrunk.values()].map((registration) => registration.unregister()));
    this.#byTrunk.clear();
  }
}
