/**
 * Trunk registration, the control plane's side (docs/architecture.md §12 "Registration"): the SIP gateways ask which
 * trunks to REGISTER with (`v1.sip.registrations.list`, queue control-plane) — every active trunk with `register`
 * on, its digest password decrypted like a dial request's — and report each registration's state
 * (`v1.sip.registrations.state`), kept per trunk and gateway for the trunk reads. Trunk writes publish
 * `v1.sip.registrations.changed` so every gateway asks again at once (it also asks every minute).
 */
import type { Bus, Subscription } from '@parley/engine/bus';
import {
  queues,
  sipCodecs,
  subjects,
  type SipRegistrationState,
  type SipRegistrationTarget,
} from '@parley/engine/protocol';
import type { Sql } from '../db/database.ts';
import type { KeyRing } from '../secrets/key-ring.ts';
import { deleteRegistration, trunksToRegister, upsertRegistration } from './sip-registration-repository.ts';
import { openTrunkPassword } from './trunk-secrets.ts';

/** The registration life a gateway asks for, s (the registrar's 200 OK says what it grants). */
export const REGISTRATION_EXPIRES_S = 3_600;

type Log = (level: 'info' | 'warn' | 'error', message: string, detail: object) => void;

/** Tells every gateway to fetch the registration list again (after a trunk write). */
export function announceRegistrationsChanged(bus: Bus): void {
  bus.publish(subjects.sipRegistrationsChanged(), '{}');
}

export class SipRegistrations {
  readonly #sql: Sql;
  readonly #keyRing: KeyRing | undefined;
  readonly #log: Log;

  constructor(sql: Sql, keyRing: KeyRing | undefined, log: Log = () => {}) {
    this.#sql = sql;
    this.#keyRing = keyRing;
    this.#log = log;
  }

  /** The trunks to keep registered; one whose password does not open is left out (and logged), not the list. */
  async targets(): Promise<SipRegistrationTarget[]> {
    const targets: SipRegistrationTarget[] = [];
    for (const trunk of await trunksToRegister(this.#sql)) {
      let password: string | undefined;
      try {
        password = trunk.password_secret
          ? openTrunkPassword(this.#keyRing, trunk.organisation_id, trunk.id, trunk.password_secret)
          : undefined;
      } catch (error) {
        this.#log('error', 'SIP trunk left unregistered: its password does not open', {
          trunkId: trunk.id,
          error: String(error),
        });
        continue;
      }
      targets.push({
        trunkId: trunk.id,
        organisationId: trunk.organisation_id,
        host: trunk.host,
        port: trunk.port,
        transport: trunk.transport,
        username: trunk.username!,
        ...(password !== undefined && { password }),
        expiresS: REGISTRATION_EXPIRES_S,
      });
    }
    return targets;
  }

  async record(report: SipRegistrationState): Promise<void> {
    const reportedAt = new Date(report.at);
    if (Number.isNaN(reportedAt.getTime())) throw new Error(`bad report time ${report.at}`);
    if (report.state === 'unregistered')
      return deleteRegistration(this.#sql, report.trunkId, report.gatewayId, reportedAt);
    const expiresAt = report.expiresAt ? new Date(report.expiresAt) : null;
    await upsertRegistration(this.#sql, {
      trunkId: report.trunkId,
      organisationId: report.organisationId,
      gatewayId: report.gatewayId,
      state: report.state,
      sipStatus: report.sipStatus ?? null,
      reason: report.reason ?? null,
      expiresAt: expiresAt && !Number.isNaN(expiresAt.getTime()) ? expiresAt : null,
      reportedAt,
    });
  }
}

/** Serves the gateways: the list on request, the states as they come. */
export class SipRegistrationResponder {
  readonly #registrations: SipRegistrations;
  readonly #log: Log;
  readonly #subscriptions: Subscription[] = [];
  readonly #serving: Promise<void>[] = [];

  constructor(registrations: SipRegistrations, log: Log = () => {}) {
    this.#registrations = registrations;
    this.#log = log;
  }

  listen(bus: Bus): this {
    const list = bus.subscribe(subjects.sipRegistrations(), { queue: queues.controlPlane });
    const states = bus.subscribe(subjects.sipRegistrationState(), { queue: queues.controlPlane });
    this.#subscriptions.push(list, states);
    this.#serving.push(
      (async () => {
        for await (const message of list) {
          try {
            sipCodecs.registrationsRequest.decode(message.data);
            const registrations = await this.#registrations.targets();
            message.respond(sipCodecs.registrationsReply.encode({ registrations }));
          } catch (error) {
            // No reply: the gateway keeps what it has and asks again soon.
            this.#log('error', 'SIP registration list not served', { error: String(error) });
          }
        }
      })(),
      (async () => {
        for await (const message of states) {
          try {
            await this.#registrations.record(sipCodecs.registrationState.decode(message.data));
          } catch (error) {
            this.#log('warn', 'SIP registration state not recorded', { error: String(error) });
          }
        }
      })(),
    );
    return this;
  }

  async close(): Promise<void> {
    for (const subscription of this.#subscriptions) subscription.unsubscribe();
    await Promise.allSettled(this.#serving);
  }
}
