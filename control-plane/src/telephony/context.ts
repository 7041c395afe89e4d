/**
 * The telephony skeleton every carrier builds on: one TelephonyContext per app, handed to each carrier's routes.
 * A carrier's HTTP side is one TelephonyCarrierModule (routes/v1/telephony/<carrier>.ts, over the carrier's own
 * CarrierModule in carriers/<carrier>/index.ts), listed once in routes/v1/telephony/index.ts; through the context it finds its API base URL, Parley's inbound webhook, the
 * stored integrations, the per-account change lock, the reconciler's inputs, the wallet check and the shared
 * rate limits, and the shared routing code finds the carrier's account through the module.
 */
import type { FastifyBaseLogger, FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';
import type { Queryable, Sql } from '../db/database.ts';
import { ApiError, notFound } from '../errors.ts';
import { CARRIER_API_DEFAULTS, carrierApiUrlVariable, type Carrier, type CarrierAccount } from './carrier.ts';
import type { KeyRing } from '../secrets/key-ring.ts';
import { findOrganisationRow } from '../accounts/repository.ts';
import { ChangeLock } from './change-lock.ts';
import { IntegrationStore, type StoredIntegration } from './integration-repository.ts';

/** Organisation feature flags of telephony (docs/architecture.md §2). */
export const SELF_SERVE_TELEPHONY = 'self_serve_telephony';
export const INDIA_PROVISIONING = 'india_provisioning';
export const MANAGED_NUMBERS = 'managed_numbers';

export interface TelephonyOptions {
  /** PARLEY_PUBLIC_URL: where carriers reach Parley's webhooks. */
  publicUrl: string;
  /**
   * PARLEY_CARRIER_<X>_API_URL by carrier as config.ts read them (defaults applied there); a carrier without a URL is
   * not configured (503). Absent altogether, every carrier uses its real API (CARRIER_API_DEFAULTS).
   */
  carrierApiUrls?: Partial<Record<Carrier, string | undefined>>;
  /** Encrypts carrier credentials at rest; without it nothing can be connected (503). */
  keyRing: KeyRing | undefined;
  /** Advisory-lock wait and claim lease of carrier changes (defaults in change-lock.ts). */
  changeLock?: { waitMs?: number; leaseMs?: number };
  /**
   * The service's own main account by carrier (carrier-a: PARLEY_CARRIER_A_SERVICE_AUTH_ID), on which it rents
   * managed numbers: no organisation may connect it as its own.
   */
  serviceAccounts?: Partial<Record<Carrier, string | undefined>>;
  /** The service accounts' tokens (carrier-a: PARLEY_CARRIER_A_SERVICE_AUTH_TOKEN), needed to rent on them. */
  serviceTokens?: Partial<Record<Carrier, string | undefined>>;
  /** The service's reseller account by carrier (carrier-d: PARLEY_CARRIER_D_USERNAME/PASSWORD). Unset: none. */
  resellers?: Partial<Record<Carrier, { username: string; password: string } | undefined>>;
}

/** One carrier: its routes, and its account for the work every carrier shares. */
export interface TelephonyCarrierModule {
  readonly provider: Carrier;
  /** Registers the carrier's /telephony/<provider>/… routes (a child plugin of the telephony routes). */
  routes(app: FastifyInstance, options: { telephony: TelephonyContext }): Promise<void>;
  /** The carrier account behind a stored integration: credentials opened, client at the configured base URL. */
  account(telephony: TelephonyContext, integration: StoredIntegration): CarrierAccount;
}

/** The organisation as telephony reads it, fresh from the database (feature flags apply at once). */
export interface TelephonyOrganisation {
  id: string;
  features: string[];
  billingCountry: string | null;
}

export class TelephonyContext {
  readonly sql: Sql;
  readonly log: FastifyBaseLogger;
  readonly integrations: IntegrationStore;
  readonly changeLock: ChangeLock;
  /**
   * Rate limits of spec document 3, Telephony routes: every /telephony route counts against one per-key budget
   * (`telephony`); sync routes also against the shared sensitive budget per client address; carrier-c connect
   * against the stricter one. Put the list on a route's preHandler.
   */
  readonly limits: {
    readonly route: preHandlerAsyncHookHandler[];
    readonly sync: preHandlerAsyncHookHandler[];
    readonly strict: preHandlerAsyncHookHandler[];
  };
  readonly #options: TelephonyOptions;
  readonly #modules = new Map<Carrier, TelephonyCarrierModule>();

  constructor(app: FastifyInstance, options: TelephonyOptions, modules: readonly TelephonyCarrierModule[]) {
    this.sql = app.sql;
    this.log = app.log;
    this.#options = options;
    this.integrations = new IntegrationStore(options.keyRing);
    this.changeLock = new ChangeLock(app.sql, options.changeLock);
    const perKey = app.limit('telephony', 'key');
    this.limits = {
      route: [perKey],
      sync: [perKey, app.limit('telephonySensitive', 'ip')],
      strict: [perKey, app.limit('telephonyStrict', 'ip')],
    };
    for (const module of modules) this.#modules.set(module.provider, module);
  }

  get modules(): readonly TelephonyCarrierModule[] {
    return [...this.#modules.values()];
  }

  /** The carrier's REST API base URL; 503 when none is configured and the carrier has no public default. */
  apiUrl(provider: Carrier): string {
    const urls = this.#options.carrierApiUrls;
    const url = urls ? urls[provider] : CARRIER_API_DEFAULTS[provider];
    if (!url)
      throw new ApiError(
        'unavailable',
        `${provider} is not configured on this server (${carrierApiUrlVariable(provider)})`,
      );
    return url.replace(/\/+$/, '');
  }

  /**
   * Parley's inbound voice webhook for a carrier, where purchased and assigned numbers send their calls:
   * `${PARLEY_PUBLIC_URL}/webhooks/<provider>/voice` (answered by the phone-calls issue's webhook routes).
   */
  inboundVoiceUrl(provider: Carrier): string {
    return `${this.#options.publicUrl.replace(/\/+$/, '')}/webhooks/${provider}/voice`;
  }

  /** Whether `accountRef` is the service's own main account of the carrier (compared case-insensitively). */
  isServiceAccount(provider: Carrier, accountRef: string): boolean {
    const own = this.#options.serviceAccounts?.[provider];
    return own !== undefined && own.toUpperCase() === accountRef.toUpperCase();
  }

  /** Whether this server has the service's own main account of the carrier configured. */
  hasServiceAccount(provider: Carrier): boolean {
    return this.#options.serviceAccounts?.[provider] !== undefined;
  }

  /** The service's own account's credentials at the carrier, when both its id and its token are configured. */
  serviceCredentials(provider: Carrier): { authId: string; authToken: string } | undefined {
    const authId = this.#options.serviceAccounts?.[provider];
    const authToken = this.#options.serviceTokens?.[provider];
    return authId !== undefined && authToken !== undefined ? { authId, authToken } : undefined;
  }

  /** The service's reseller credentials at the carrier, when configured. */
  reseller(provider: Carrier): { username: string; password: string } | undefined {
    return this.#options.resellers?.[provider];
  }

  /** The account behind an integration, or undefined when this server has no module for its carrier. */
  accountFor(integration: StoredIntegration): CarrierAccount | undefined {
    return this.#modules.get(integration.provider)?.account(this, integration);
  }

  /** The organisation, or 404 when it does not exist (any more). */
  async organisation(sql: Queryable, organisationId: string): Promise<TelephonyOrganisation> {
    const row = await findOrganisationRow(sql, organisationId);
    if (!row) throw notFound('Organisation');
    return { id: row.id, features: row.features, billingCountry: row.billing_country };
  }

  /** The organisation, with `feature` on (403 feature_disabled otherwise). */
  async requireFeature(
    sql: Queryable,
    organisationId: string,
    feature: string,
    name: string,
  ): Promise<TelephonyOrganisation> {
    const organisation = await this.organisation(sql, organisationId);
    if (!organisation.features.includes(feature)) {
      throw new ApiError('feature_disabled', `${name} is not enabled for this organisation`);
    }
    return organisation;
  }

  /** Self-serve telephony (connecting the organisation's own carrier accounts) must be on. */
  requireSelfServe(sql: Queryable, organisationId: string): Promise<TelephonyOrganisation> {
    return this.requireFeature(sql, organisationId, SELF_SERVE_TELEPHONY, 'Self-serve telephony');
  }

  /** The organisation's connected account of the carrier; 404 when there is none. */
  async requireIntegration(sql: Queryable, organisationId: string, provider: Carrier): Promise<StoredIntegration> {
    const integration = await this.integrations.active(sql, organisationId, provider);
    if (!integration) throw new ApiError('not_found', `No ${provider} account is connected: connect one first`);
    return integration;
  }
}
