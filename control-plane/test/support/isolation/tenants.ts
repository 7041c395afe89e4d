/**
 * Two organisations with one of everything, for the tenant-isolation harness. When a later issue adds a resource,
 * it adds its seeding here and names its ids in TenantIds; routes that take those ids are then covered without
 * further work, because the harness fills parameters and fields by name (request-synthesis.ts).
 */
import type { Sql } from '../../../src/db/database.ts';
import { insertApiKey } from '../../../src/auth/api-key-repository.ts';
import { CUSTOMER_SCOPES, WIDGET_SCOPE, type Scope } from '../../../src/auth/scopes.ts';
import { newId } from '../../../src/db/ids.ts';
import {
  enableFeatures,
  seedAgent,
  seedCall,
  seedMember,
  seedOrganisation,
  seedPhoneNumber,
  seedWallet,
} from '../seed.ts';

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
  phoneNumberId: string;
  /** The number itself (E.164): looked for in foreign answers like the ids. */
  phoneNumber: string;
  /** A call record of the VOICE agent (session id), ended, with a stored detailed analysis report. */
  callId: string;
  /** That call's room name (its Call ID). */
  roomName: string;
  /** A SIP trunk and an INBOUND SIP configuration on it (answered by the VOICE agent). */
  sipTrunkId: string;
  sipConfigurationId: string;
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
  // A number of its own: a new agent of another organisation must never be given it as its caller number.
  const phoneNumber = `+1555${Math.floor(1_000_000 + Math.random() * 8_999_999)}`;
  const phoneNumberId = await seedPhoneNumber(sql, org.organisationId, { provider: 'carrier-a', phoneNumber });
  // A funded wallet and self-serve telephony: the owner's own telephony requests then get past the funding and
  // feature checks to the rules behind them (no carrier is connected, so none is ever called).
  await seedWallet(sql, org.organisationId, { balanceMinor: 2_500 });
  await enableFeatures(sql, org.organisationId, ['self_serve_telephony']);
  // An ended call with a report: another organisation must neither read nor end it, nor see its report.
  const callId = newId();
  const roomName = `room-${callId}`;
  await seedCall(sql, org.organisationId, agentId, {
    id: callId,
    room_name: roomName,
    call_status: 'COMPLETED',
    call_outcome: 'completed',
    dispatched_at: new Date(),
    phone_number: '+15555550123',
    ended_at: new Date(),
    call_duration: 30_000,
    overview: { score: 7, summary: ['A call'] },
  });
  await sql`insert into call_analysis_reports (id, organisation_id, call_id, room_name, status, transcript_text, parsed_analysis, token_usage, model)
            values (${newId()}, ${org.organisationId}, ${callId}, ${roomName}, 'ready', 'Agent: Hello', ${sql.json({ summary: 'A call' })},
                    ${sql.json({ prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 })}, 'default')`;
  const sipTrunkId = newId();
  await sql`insert into sip_trunks (id, organisation_id, name, host, source_addresses)
            values (${sipTrunkId}, ${org.organisationId}, 'PBX', 'pbx.example.com', ${['203.0.113.9']})`;
  const sipConfigurationId = newId();
  await sql`insert into sip_configurations (id, organisation_id, sip_trunk_id, type, provider_id, agent_id, phone_number)
            values (${sipConfigurationId}, ${org.organisationId}, ${sipTrunkId}, 'INBOUND',
                    (select id from sip_providers where name = 'generic'), ${agentId},
                    ${`+1556${Math.floor(1_000_000 + Math.random() * 8_999_999)}`})`;
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
      phoneNumberId,
      phoneNumber,
      callId,
      roomName,
      sipTrunkId,
      sipConfigurationId,
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
