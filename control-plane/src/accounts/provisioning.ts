/**
 * Creating organisations, users and API keys outside the REST API: the first-start bootstrap and the `parley` CLI.
 */
import type { Queryable, Sql } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import { insertApiKey, type CreatedKey } from '../auth/api-key-repository.ts';
import { CUSTOMER_SCOPES } from '../auth/scopes.ts';
import { adjustWallet } from '../wallet/wallet.ts';
import type { UserRow } from './records.ts';
import { changeFeatures, findUserByEmail, insertMember, insertOrganisation, insertUser } from './repository.ts';

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
    const name = input.ownerName ?? nameFromEmail(input.ownerEmail);
    await insertUser(tx, { id: userId, name, email: input.ownerEmail, verified: false });
  }
  const organisationId = newId();
  await insertOrganisation(tx, {
    id: organisationId,
    name: input.name,
    ownerId: userId,
    features: input.features ?? [],
  });
  await insertMember(tx, { organisationId, userId, role: 'OWNER' });
  const apiKey = await insertApiKey(tx, { organisationId, userId, name: 'Owner key', scopes: CUSTOMER_SCOPES });
  if (input.credit && input.credit.amountMinor > 0) {
    // Money given away, once per organisation: its key is the organisation's.
    await adjustWallet(tx, {
      organisationId,
      ...input.credit,
      promotion: true,
      idempotencyKey: `opening-credit:${organisationId}`,
    });
  }
  return { organisationId, userId, apiKey };
}

/** Turns feature flags on and off; the flags as stored after, or undefined when there is no such organisation. */
export function setFeatures(
  sql: Sql,
  organisationId: string,
  enable: readonly Feature[],
  disable: readonly Feature[],
): Promise<string[] | undefined> {
  return changeFeatures(sql, organisationId, enable, disable);
}

export function nameFromEmail(email: string): string {
  const local = email.split('@')[0] ?? email;
  const words = local.split(/[._+-]+/).filter(Boolean);
  return words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join(' ') || email;
}

export type { UserRow };
