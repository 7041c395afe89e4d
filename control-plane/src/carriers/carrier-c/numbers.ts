/**
 * carrier-c on the customer's own account (spec document 2): connect and sync. Both need a funded wallet, run as
 * one change of the account (change-lock.ts), read every page of its numbers, point the unrouted voice numbers at
 * the customer's `appId` flow (the carrier routes a number only to a flow, never to a webhook: that flow's
 * streaming applet is what reaches Parley), and reconcile. What was done to each number is recorded in its
 * `metadata.routing`.
 */
import type { Principal } from '../../auth/principal.ts';
import type { Queryable, Sql, TransactionSql } from '../../db/database.ts';
import { ApiError } from '../../errors.ts';
import {
  CARRIER_C_SUBDOMAINS,
  CarrierCClient,
  DEFAULT_SUBDOMAIN,
  isCarrierCSubdomain,
  regionalBaseUrl,
  type CarrierCCredentials,
  type CarrierCSubdomain,
} from './api.ts';
import { CarrierError, type RemoteNumber } from '../../telephony/carrier.ts';
import type { Change } from '../../telephony/change-lock.ts';
import type { TelephonyContext } from '../../telephony/context.ts';
import { integrationRecord, type IntegrationRecord, type StoredIntegration } from '../../telephony/integrations.ts';
import { readEveryPage, type RemoteRead } from '../../telephony/reconciler.ts';
import { assertFunded } from '../../wallet/wallet.ts';
import type { ConnectBody, SyncBody } from './types.ts';
import { applyRead, connectAccount, syncAccount } from '../../telephony/account-sync.ts';

export const PROVIDER = 'carrier-c';
/** The label of an account connected without one, when none was set before. */
export const DEFAULT_LABEL = 'carrier-c account';

/** What a connect or sync did (spec: `synced` {remoteCount, synced, skipped}, with Parley's further counts). */
export interface SyncCounts {
  remoteCount: number;
  synced: number;
  skipped: number;
  needsSetup: number;
  routed: number;
  deactivated: number;
  complete: boolean;
}

export interface ConnectResult {
  integration: IntegrationRecord;
  synced: SyncCounts;
}

/** What was done about a number's routing, kept in its `metadata.routing`. */
interface RoutingRecord {
  /** routed: pointed at the flow now; already: it was; left_alone: on another flow; failed: the carrier refused;
   *  pending: not tried, the carrier stopped answering (rate limit, outage) — the next sync tries again. */
  status: 'routed' | 'already' | 'left_alone' | 'failed' | 'pending';
  appId: string;
  voiceUrl: string;
  reason?: string;
  at: string;
}

/** A carrier read with the routing done: what reconcile applies, and what the counts need. */
interface Work {
  read: RemoteRead;
  listed: number;
  routing: Map<string, RoutingRecord>;
  routed: number;
}

export class CarrierCService {
  readonly #telephony: TelephonyContext;

  constructor(telephony: TelephonyContext) {
    this.#telephony = telephony;
  }

  /** A client of the account behind a stored integration, on its region and flow. */
  client(integration: StoredIntegration): CarrierCClient {
    const stored = this.#telephony.integrations.credentials(integration);
    const { api_key: apiKey, api_token: apiToken } = stored;
    const appId = integration.config.app_id;
    if (!apiKey || !apiToken || typeof appId !== 'string') {
      throw new ApiError(
        'credentials_required',
        'The stored carrier-c credentials are incomplete: connect the account again',
      );
    }
    const subdomain =
      typeof integration.config.subdomain === 'string' && isCarrierCSubdomain(integration.config.subdomain)
        ? integration.config.subdomain
        : DEFAULT_SUBDOMAIN;
    return this.#clientFor(
      { accountSid: stored.account_sid ?? integration.accountRef, apiKey, apiToken },
      subdomain,
      appId,
    );
  }

  async connect(principal: Principal, body: ConnectBody): Promise<ConnectResult> {
    const t = this.#telephony;
    const organisationId = principal.organisationId;
    const subdomain = allowedSubdomain(body.subdomain);
    await t.requireSelfServe(t.sql, organisationId);
    await assertFunded(t.sql, organisationId);
    const credentials: CarrierCCredentials = {
      accountSid: body.accountSid,
      apiKey: body.apiKey,
      apiToken: body.apiToken,
    };
    return connectAccount(t, {
      organisationId,
      provider: PROVIDER,
      account: () => ({
        accountRef: credentials.accountSid,
        stored: {
          account_sid: credentials.accountSid,
          api_key: credentials.apiKey,
          api_token: credentials.apiToken,
        },
      }),
      bringIn: (_account, { current, replaced }) => {
        const formerApp =
          current && !replaced && typeof current.config.app_id === 'string' ? current.config.app_id : undefined;
        return this.#readAndRoute(this.#clientFor(credentials, subdomain, body.appId, formerApp), organisationId);
      },
      config: (_account, _work, { current }) => ({
        label: body.label ?? (current?.config.label as string | undefined) ?? DEFAULT_LABEL,
        app_id: body.appId,
        subdomain,
        connected_at: new Date().toISOString(),
      }),
      apply: async (tx, { integration, work, change, retired }) => {
        const counts = await this.#apply(tx, organisationId, integration.id, work, change);
        return {
          integration: integrationRecord(integration),
          synced: { ...counts, deactivated: counts.deactivated + retired },
        };
      },
    });
  }

  async sync(principal: Principal, _body: SyncBody): Promise<{ synced: SyncCounts }> {
    const t = this.#telephony;
    const organisationId = principal.organisationId;
    await t.requireSelfServe(t.sql, organisationId);
    await assertFunded(t.sql, organisationId);
    return syncAccount(t, {
      organisationId,
      provider: PROVIDER,
      bringIn: (integration) => this.#readAndRoute(this.client(integration), organisationId),
      apply: async (tx, { integration, work, change }) => ({
        synced: await this.#apply(tx, organisationId, integration.id, work, change),
      }),
    });
  }

  #clientFor(
    credentials: CarrierCCredentials,
    subdomain: CarrierCSubdomain,
    appId: string,
    formerApp?: string,
  ): CarrierCClient {
    return new CarrierCClient({
      baseUrl: regionalBaseUrl(this.#telephony.apiUrl(PROVIDER), subdomain),
      credentials,
      appId,
      formerAppIds: formerApp && formerApp !== appId ? [formerApp] : [],
    });
  }

  /**
   * Reads every page, then points each unrouted voice number at the flow. Numbers on another flow are left alone,
   * and so are numbers the organisation has active on another carrier (reconcile skips them). The first failure
   * that is not about one number (rate limit, outage) stops the routing: the rest are recorded pending and the
   * read is still imported. Carrier-side changes are idempotent, so a commit that fails later harms nothing.
   */
  async #readAndRoute(client: CarrierCClient, organisationId: string): Promise<Work> {
    let unusable = 0;
    const pages = client.incomingNumbers();
    const read = await readEveryPage(
      (async function* () {
        for await (const page of pages) {
          unusable += page.unusable;
          yield page.numbers;
        }
      })(),
    );
    const elsewhere = await activeOnOtherCarriers(
      this.#telephony.sql,
      organisationId,
      read.numbers.map((n) => n.phoneNumber),
    );
    const routing = new Map<string, RoutingRecord>();
    const record = (status: RoutingRecord['status'], reason?: string): RoutingRecord => ({
      status,
      appId: client.appId,
      voiceUrl: client.voiceUrl,
      ...(reason ? { reason } : {}),
      at: new Date().toISOString(),
    });
    let halted: CarrierError | undefined;
    let routed = 0;
    const numbers: RemoteNumber[] = [];
    for (const number of read.numbers) {
      if (!number.capabilities.voice) continue;
      numbers.push(number);
      if (elsewhere.has(number.phoneNumber)) continue;
      if (number.inbound === 'parley') {
        routing.set(number.phoneNumber, record('already'));
      } else if (number.inbound === 'elsewhere') {
        routing.set(
          number.phoneNumber,
          record('left_alone', 'answers through another flow: assign it to an agent to move it'),
        );
      } else if (halted) {
        routing.set(number.phoneNumber, record('pending', `not tried: ${halted.message}; sync again`));
      } else {
        try {
          await client.routeInbound(number, this.#telephony.inboundVoiceUrl(PROVIDER));
          numbers[numbers.length - 1] = { ...number, inbound: 'parley' };
          routing.set(number.phoneNumber, record('routed'));
          routed += 1;
        } catch (error) {
          if (!(error instanceof CarrierError)) throw error;
          const oneNumber = error.code === 'rejected' || error.code === 'not_found';
          if (!oneNumber) halted = error;
          routing.set(number.phoneNumber, record(oneNumber ? 'failed' : 'pending', error.message));
        }
      }
    }
    if (halted) {
      this.#telephony.log.warn(
        { organisationId, provider: PROVIDER, err: halted },
        'carrier stopped answering while numbers were routed',
      );
    }
    return { read: { ...read, numbers }, listed: read.numbers.length + unusable, routing, routed };
  }

  /** Applies the read in the change's commit: reconcile, the routing records, the sync time. */
  async #apply(
    tx: TransactionSql,
    organisationId: string,
    integrationId: string,
    work: Work,
    change: Change,
  ): Promise<SyncCounts> {
    const { read } = work;
    const counts = await applyRead(this.#telephony, tx, {
      organisationId,
      provider: PROVIDER,
      integrationId,
      read,
      change,
    });
    await recordRouting(tx, integrationId, work.routing);
    const synced = counts.imported + counts.updated;
    return {
      remoteCount: work.listed,
      synced,
      skipped: work.listed - synced,
      needsSetup: counts.needsSetup,
      routed: work.routed,
      deactivated: counts.deactivated,
      complete: read.complete,
    };
  }
}

/** The subdomain a connect names, or the default; 400 subdomain_not_allowed naming the field otherwise. */
function allowedSubdomain(subdomain: string | undefined): CarrierCSubdomain {
  if (subdomain === undefined) return DEFAULT_SUBDOMAIN;
  if (isCarrierCSubdomain(subdomain)) return subdomain;
  const allowed = CARRIER_C_SUBDOMAINS.join(' or ');
  throw new ApiError('subdomain_not_allowed', `subdomain "${subdomain}" is not allowed: use ${allowed}`, {
    fields: [{ field: 'subdomain', message: `must be ${allowed}` }],
  });
}

/** Numbers among `phoneNumbers` the organisation has active on another carrier: Parley leaves them alone. */
async function activeOnOtherCarriers(
  sql: Queryable,
  organisationId: string,
  phoneNumbers: string[],
): Promise<Set<string>> {
  if (!phoneNumbers.length) return new Set();
  const rows = await sql<{ phone_number: string }[]>`select phone_number from phone_numbers
    where organisation_id = ${organisationId} and status = 'ACTIVE' and deleted_at is null and provider <> ${PROVIDER}
      and phone_number = any(${phoneNumbers}::text[])`;
  return new Set(rows.map((r) => r.phone_number));
}

/** Writes each number's routing record into its metadata (numbers of this account only). */
async function recordRouting(
  tx: TransactionSql,
  integrationId: string,
  routing: Map<string, RoutingRecord>,
): Promise<void> {
  if (!routing.size) return;
  const entries = [...routing].map(([phone_number, record]) => ({ phone_number, routing: record }));
  await tx`update phone_numbers p set metadata = p.metadata || jsonb_build_object('routing', v.routing)
    from jsonb_to_recordset(${(tx as unknown as Sql).json(entries as never)}) as v(phone_number text, routing jsonb)
    where p.integration_id = ${integrationId} and p.phone_number = v.phone_number and p.deleted_at is null`;
}
