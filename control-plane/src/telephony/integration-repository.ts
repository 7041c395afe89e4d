/**
 * Telephony integrations: the carrier accounts organisations connect (spec document 1, Telephony integration).
 * Credentials are encrypted with the key ring (AES-256-GCM, bound to the organisation and the integration) and
 * never leave this file in clear except to an adapter about to call the carrier; the API shows each credential's
 * key in `config` only as the literal "configured".
 */
import type { Queryable, Sql } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import { ApiError } from '../errors.ts';
import type { Carrier } from './carrier.ts';
import { SecretError, type KeyRing } from '../secrets/key-ring.ts';

/** What `config` shows in place of a credential. */
export const CONFIGURED = 'configured';

interface IntegrationRow {
  id: string;
  organisation_id: string;
  provider: Carrier;
  account_ref: string;
  config: Record<string, unknown>;
  secrets: Record<string, string>;
  is_active: boolean;
  last_synced_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** An integration as stored; its credentials stay sealed until credentials() opens them. */
export interface StoredIntegration {
  id: string;
  organisationId: string;
  provider: Carrier;
  /** The carrier's account identifier (carrier-b: AccountSid); never returned by the API. */
  accountRef: string;
  /** Settings as returned (label, connected_at, amd…), without credentials. */
  config: Record<string, unknown>;
  isActive: boolean;
  lastSyncedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** Credential ciphertexts by config key. */
  readonly sealed: Readonly<Record<string, string>>;
}

/** The record of spec document 1, Telephony integration. */
export interface IntegrationRecord {
  id: string;
  organisationId: string;
  provider: Carrier;
  isActive: boolean;
  createdAt: Date;
  updatedAt: Date;
  config: Record<string, unknown>;
}

export interface SaveIntegration {
  organisationId: string;
  provider: Carrier;
  accountRef: string;
  config: Record<string, unknown>;
  /** Credentials in clear by config key (auth_token…); encrypted here. */
  credentials: Record<string, string>;
}

export function integrationRecord(integration: StoredIntegration): IntegrationRecord {
  const config: Record<string, unknown> = { ...integration.config };
  for (const key of Object.keys(integration.sealed)) config[key] = CONFIGURED;
  return {
    id: integration.id,
    organisationId: integration.organisationId,
    provider: integration.provider,
    isActive: integration.isActive,
    createdAt: integration.createdAt,
    updatedAt: integration.updatedAt,
    config,
  };
}

/** The associated data of an integration's credentials: a ciphertext copied to another record does not open. */
const secretContext = (organisationId: string, integrationId: string) => `telephony:${organisationId}:${integrationId}`;

export class IntegrationStore {
  readonly #keyRing: KeyRing | undefined;

  constructor(keyRing: KeyRing | undefined) {
    this.#keyRing = keyRing;
  }

  /** The organisation's connected account of `provider`, if any. `lock` holds its row until the transaction ends. */
  async active(
    sql: Queryable,
    organisationId: string,
    provider: Carrier,
    lock = false,
  ): Promise<StoredIntegration | undefined> {
    const [row] = await sql.unsafe<IntegrationRow[]>(
      `select * from telephony_integrations where organisation_id = $1 and provider = $2 and is_active${lock ? ' for update' : ''}`,
      [organisationId, provider],
    );
    return row && stored(row);
  }

  /** One integration of the organisation, active or not. */
  async byId(sql: Queryable, organisationId: string, id: string): Promise<StoredIntegration | undefined> {
    const [row] = await sql<
      IntegrationRow[]
    >`select * from telephony_integrations where id = ${id} and organisation_id = ${organisationId}`;
    return row && stored(row);
  }

  /** The organisation's connected accounts, newest first. */
  async listActive(sql: Queryable, organisationId: string): Promise<StoredIntegration[]> {
    const rows = await sql<IntegrationRow[]>`select * from telephony_integrations
      where organisation_id = ${organisationId} and is_active order by created_at desc, id desc`;
    return rows.map(stored);
  }

  /**
   * The credentials in clear, for an adapter about to call the carrier. 503 when this server has no key ring;
   * 500 when a stored credential does not open (a key dropped from PARLEY_SECRET_KEYS too early: the operator's
   * problem, never the caller's; the reason goes to the log only).
   */
  credentials(integration: StoredIntegration): Record<string, string> {
    const ring = this.#requireRing();
    const context = secretContext(integration.organisationId, integration.id);
    const open: Record<string, string> = {};
    for (const [key, ciphertext] of Object.entries(integration.sealed)) {
      try {
        open[key] = ring.decrypt(ciphertext, context);
      } catch (error) {
        if (!(error instanceof SecretError)) throw error;
        throw new ApiError('internal', `Stored ${integration.provider} credentials could not be decrypted`, {
          cause: error,
        });
      }
    }
    return open;
  }

  /**
   * Makes `accountRef` the organisation's connected account of the provider: its row is updated (or created) with
   * the config and freshly encrypted credentials, and whichever other account of the provider was connected is
   * deactivated. Run inside the change's transaction.
   */
  async save(sql: Queryable, input: SaveIntegration): Promise<StoredIntegration> {
    const ring = this.#requireRing();
    const [existing] = await sql<{ id: string }[]>`select id from telephony_integrations
      where organisation_id = ${input.organisationId} and provider = ${input.provider} and account_ref = ${input.accountRef} for update`;
    const id = existing?.id ?? newId();
    const sealed = Object.fromEntries(
      Object.entries(input.credentials).map(([key, value]) => [
        key,
        ring.encrypt(value, secretContext(input.organisationId, id)),
      ]),
    );
    // The partial unique index allows one active account per provider: the old one steps down first.
    await sql`update telephony_integrations set is_active = false, updated_at = now()
      where organisation_id = ${input.organisationId} and provider = ${input.provider} and is_active and id <> ${id}`;
    const json = (value: Record<string, unknown>) => (sql as Sql).json(value as never);
    const [row] = existing
      ? await sql<IntegrationRow[]>`update telephony_integrations
          set config = ${json(input.config)}, secrets = ${json(sealed)}, is_active = true, updated_at = now()
          where id = ${id} returning *`
      : await sql<
          IntegrationRow[]
        >`insert into telephony_integrations (id, organisation_id, provider, account_ref, config, secrets)
          values (${id}, ${input.organisationId}, ${input.provider}, ${input.accountRef}, ${json(input.config)}, ${json(sealed)})
          returning *`;
    return stored(row!);
  }

  /** Records a completed sync. */
  async markSynced(sql: Queryable, id: string, at: Date): Promise<void> {
    await sql`update telephony_integrations set last_synced_at = ${at}, updated_at = now() where id = ${id}`;
  }

  /** Disconnects an account: it stays on record, inactive. */
  async deactivate(sql: Queryable, id: string): Promise<void> {
    await sql`update telephony_integrations set is_active = false, updated_at = now() where id = ${id}`;
  }

  #requireRing(): KeyRing {
    if (!this.#keyRing)
      throw new ApiError('unavailable', 'Secrets at rest are not configured on this server (PARLEY_SECRET_KEYS)');
    return this.#keyRing;
  }
}

/** Merges `fields` into the integration's config (carrier-d records its KYC state there). */
export async function mergeIntegrationConfig(
  sql: Queryable,
  integrationId: string,
  fields: Record<string, unknown>,
): Promise<void> {
  await sql`update telephony_integrations set config = config || ${(sql as Sql).json(fields as never)}, updated_at = now()
    where id = ${integrationId}`;
}

/** The organisation whose active account at `provider` is `accountRef` (the one connected last, should two be). */
export async function organisationOfAccount(
  sql: Queryable,
  provider: Carrier,
  accountRef: string,
): Promise<string | undefined> {
  const [row] = await sql<{ organisation_id: string }[]>`select organisation_id from telephony_integrations
    where provider = ${provider} and account_ref = ${accountRef} and is_active order by updated_at desc limit 1`;
  return row?.organisation_id;
}

function stored(row: IntegrationRow): StoredIntegration {
  return {
    id: row.id,
    organisationId: row.organisation_id,
    provider: row.provider,
    accountRef: row.account_ref,
    config: row.config,
    isActive: row.is_active,
    lastSyncedAt: row.last_synced_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    sealed: row.secrets,
  };
}
