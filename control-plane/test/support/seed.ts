/** Test data made through the same code paths production uses (provisioning), plus rows no route creates yet. */
import type { Sql } from '../../src/db/database.ts';
import { newId } from '../../src/db/ids.ts';
import { insertApiKey, provisionOrganisation, type CreatedKey } from '../../src/accounts/provisioning.ts';
import type { Role, Scope } from '../../src/auth/scopes.ts';

/**
 * Seeding writes rows by hand, past the services that announce changes to the organisation cache. Test apps
 * register here to hear of such writes, as they would hear a service's announcement.
 */
const seedListeners = new Set<(organisationId: string) => void>();

export function onSeededChange(listener: (organisationId: string) => void): () => void {
  seedListeners.add(listener);
  return () => seedListeners.delete(listener);
}

function announce(organisationId: string): void {
  for (const listener of seedListeners) listener(organisationId);
}

export interface SeededOrganisation {
  organisationId: string;
  ownerId: string;
  /** A key of the owner with every customer scope. */
  key: string;
  keyId: string;
}

export async function seedOrganisation(sql: Sql, name = 'Acme'): Promise<SeededOrganisation> {
  const email = `owner-${newId()}@example.com`;
  const created = await provisionOrganisation(sql, { name, ownerEmail: email, ownerName: `${name} Owner` });
  return { organisationId: created.organisationId, ownerId: created.userId, key: created.apiKey.key, keyId: created.apiKey.id };
}

export async function seedUser(sql: Sql, name = 'Member Person'): Promise<string> {
  const id = newId();
  await sql`insert into users (id, name, email) values (${id}, ${name}, ${`user-${id}@example.com`})`;
  return id;
}

/** A user who is a member of the organisation with `role`, and a key of theirs with `scopes`. */
export async function seedMember(sql: Sql, organisationId: string, role: Role, scopes: readonly Scope[]): Promise<{ userId: string } & CreatedKey> {
  const userId = await seedUser(sql, `${role.toLowerCase()} member`);
  await sql`insert into members (id, organisation_id, user_id, role) values (${newId()}, ${organisationId}, ${userId}, ${role})`;
  const key = await insertApiKey(sql, { organisationId, userId, name: `${role} key`, scopes });
  announce(organisationId);
  return { userId, ...key };
}

export async function seedAgent(sql: Sql, organisationId: string, agentType: 'VOICE' | 'CHAT' = 'CHAT'): Promise<string> {
  const id = newId();
  await sql`insert into agents (id, organisation_id, name, agent_type) values (${id}, ${organisationId}, ${`${agentType} agent`}, ${agentType})`;
  return id;
}
