/**
 * Two organisations with one of everything, for the tenant-isolation harness. When a later issue adds a resource,
 * it adds its seeding here and names its ids in TenantIds; routes that take those ids are then covered without
 * further work, because the harness fills parameters and fields by name (request-synthesis.ts).
 */
import type { Sql } from '../../../src/db/database.ts';
import { insertApiKey } from '../../../src/accounts/provisioning.ts';
import { CUSTOMER_SCOPES, WIDGET_SCOPE, type Scope } from '../../../src/auth/scopes.ts';
import { newId } from '../../../src/db/ids.ts';
import { seedAgent, seedMember, seedOrganisation } from '../seed.ts';

export interface Tenant {
  /** Identifiers by kind; the harness fills requests from these and looks for them in foreign answers. */
  ids: TenantIds;
  /** The owner's key with every customer scope. */
  ownerKey: string;
  ownerKeyId: string;
  widgetToken: string;
}

export interface TenantIds {
  organisationId: string;
  ownerId: string;
  memberUserId: string;
  memberKeyId: string;
  agentId: string;
  chatAgentId: string;
  widgetKeyId: string;
  invitationId: string;
  invitationToken: string;
}

export async function seedTenant(sql: Sql, name: string): Promise<Tenant> {
  const org = await seedOrganisation(sql, name);
  const member = await seedMember(sql, org.organisationId, 'ADMIN', CUSTOMER_SCOPES);
  const agentId = await seedAgent(sql, org.organisationId, 'VOICE');
  const chatAgentId = await seedAgent(sql, org.organisationId, 'CHAT');
  const widget = await insertApiKey(sql, {
    organisationId: org.organisationId,
    userId: org.ownerId,
    name: 'site widget',
    scopes: [WIDGET_SCOPE],
    kind: 'widget',
    agentId: chatAgentId,
  });
  const invitationId = newId();
  const invitationToken = newId() + newId() + newId().slice(0, 16);
  await sql`insert into invitations (id, organisation_id, email, name, role, invited_by_id, status, token, expires_at)
            values (${invitationId}, ${org.organisationId}, ${`invitee-${invitationId}@example.com`}, 'Invitee', 'VIEWER',
                    ${org.ownerId}, 'PENDING', ${invitationToken}, now() + interval '7 days')`;
  return {
    ownerKey: org.key,
    ownerKeyId: org.keyId,
    widgetToken: widget.key,
    ids: {
      organisationId: org.organisationId,
      ownerId: org.ownerId,
      memberUserId: member.userId,
      memberKeyId: member.id,
      agentId,
      chatAgentId,
      widgetKeyId: widget.id,
      invitationId,
      invitationToken,
    },
  };
}

/** A key of the tenant's owner holding every customer scope except `without`. */
export async function keyWithout(sql: Sql, tenant: Tenant, without: readonly Scope[]): Promise<string> {
  const scopes = CUSTOMER_SCOPES.filter((s) => !without.includes(s));
  const created = await insertApiKey(sql, {
    organisationId: tenant.ids.organisationId,
    userId: tenant.ids.ownerId,
    name: `without ${without.join(' ')}`,
    scopes,
  });
  return created.key;
}

export async function revokedKey(sql: Sql, tenant: Tenant): Promise<string> {
  const created = await insertApiKey(sql, {
    organisationId: tenant.ids.organisationId,
    userId: tenant.ids.ownerId,
    name: 'revoked',
    scopes: CUSTOMER_SCOPES,
  });
  await sql`update api_keys set revoked_at = now() where id = ${created.id}`;
  return created.key;
}
