/**
 * Creating organisations, users and API keys outside the REST API: the first-start bootstrap and the `parley` CLI.
 */
import type { Queryable, Sql } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import { insertApiKey, type CreatedKey } from '../auth/api-key-repository.ts';
import { CUSTOMER_SCOPES } from '../auth/scopes.ts';
import { adjustWallet } from '../wallet/wallet.ts';
import type { OrganisationRow, UserRow } from './records.ts';
import { findUserByEmail } from './repository.ts';

/** The organisation feature flags of docs/architecture.md §2; a new organisation has none, the bootstrap one has all. */
export const FEATURES = ['flow_agents', 'self_serve_telephony', 'india_provisioning', 'managed_numbers'] as const;
export type Feature = (typeof FEATURES)[number];

export interface ProvisionedOrganisation {
  organisationId: string;
  userId: string;
  apiKey: CreatedKey;
}

export interface OrganisationInput {
  name: string;
  ownerEmail: string;
  ownerName?: string;
  features?: readonly Feature[];
  /** A first credit of the organisation's wallet, journaled as an adjustment; none when absent or 0. */
  credit?: { amountMinor: number; reason: string; actor: string };
}

/** Creates an organisation with its owner (reusing an existing user of that e-mail) and a key with every scope. */
export async function provisionOrganisation(sql: Sql, input: OrganisationInput): Promise<ProvisionedOrganisation> {
  return sql.begin((tx) => provisionOrganisationIn(tx, input));
}

/** As provisionOrganisation, inside the caller's transaction. */
export async function provisionOrganisationIn(
  tx: Queryable,
  input: OrganisationInput,
): Promise<ProvisionedOrganisation> {
  const existing = await findUserByEmail(tx, input.ownerEmail);
  const userId = existing?.id ?? newId();
  if (!existing) {
    await tx`insert into users (id, name, email, is_email_verified)
             values (${userId}, ${input.ownerName ?? nameFromEmail(input.ownerEmail)}, ${input.ownerEmail}, false)`;
  }
  const organisationId = newId();
  await tx`insert into organisations (id, name, owner_id, features)
           values (${organisationId}, ${input.name}, ${userId}, ${[...(input.features ?? [])]})`;
  await tx`insert into members (id, organisation_id, user_id, role) values (${newId()}, ${organisationId}, ${userId}, 'OWNER')`;
  const apiKey = await insertApiKey(tx, { organisationId, userId, name: 'Owner key', scopes: CUSTOMER_SCOPES });
  if (input.credit && input.credit.amountMinor > 0) await adjustWallet(tx, { organisationId, ...input.credit });
  return { organisationId, userId, apiKey };
}

export async function findOrganisationRow(sql: Sql, organisationId: string): Promise<OrganisationRow | undefined> {
  const [row] = await sql<
    OrganisationRow[]
  >`select * from organisations where id = ${organisationId} and deleted_at is null`;
  return row;
}

export async function setFeatures(
  sql: Sql,
  organisationId: string,
  enable: readonly Feature[],
  disable: readonly Feature[],
): Promise<string[] | undefined> {
  const [row] = await sql<{ features: string[] }[]>`
    update organisations
       set features = array(select distinct f from unnest(features || ${[...enable]}::text[]) f
                             where f <> all(${[...disable]}::text[]) order by f),
           updated_at = now()
     where id = ${organisationId} and deleted_at is null
    returning features`;
  return row?.features;
}

export function nameFromEmail(email: string): string {
  const local = email.split('@')[0] ?? email;
  const words = local.split(/[._+-]+/).filter(Boolean);
  return words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join(' ') || email;
}

export type { UserRow };
