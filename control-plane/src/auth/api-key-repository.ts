import type { Queryable } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import { generateApiKey } from './api-key.ts';
import type { Role, Scope } from './scopes.ts';

export interface ApiKeyRow {
  id: string;
  name: string;
  kind: 'management' | 'widget';
  key_prefix: string;
  last4: string;
  scopes: string[];
  organisation_id: string;
  agent_id: string | null;
  ai_host: string | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

/** The API key / widget token record of spec document 1 (snake_case, as the spec writes it). */
export interface KeyRecord {
  id: string;
  name: string;
  key_prefix: string;
  last4: string;
  scopes: string[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  organisation_id: string;
  agent_id: string | null;
  ai_host: string | null;
}

export function keyRecord(row: ApiKeyRow): KeyRecord {
  return {
    id: row.id,
    name: row.name,
    key_prefix: row.key_prefix,
    last4: row.last4,
    scopes: row.scopes,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
    organisation_id: row.organisation_id,
    agent_id: row.agent_id,
    ai_host: row.ai_host,
  };
}

const COLUMNS =
  'id, name, kind, key_prefix, last4, scopes, organisation_id, agent_id, ai_host, created_at, last_used_at, revoked_at';

export async function activeWidgetTokens(
  sql: Queryable,
  organisationId: string,
  agentId: string,
): Promise<ApiKeyRow[]> {
  return sql.unsafe<ApiKeyRow[]>(
    `select ${COLUMNS} from api_keys where organisation_id = $1 and agent_id = $2 and kind = 'widget'
       and revoked_at is null order by created_at, id`,
    [organisationId, agentId],
  );
}

export async function findKey(sql: Queryable, organisationId: string, keyId: string): Promise<ApiKeyRow | undefined> {
  const [row] = await sql.unsafe<ApiKeyRow[]>(
    `select ${COLUMNS} from api_keys where organisation_id = $1 and id = $2`,
    [organisationId, keyId],
  );
  return row;
}

export async function findKeyById(sql: Queryable, keyId: string): Promise<ApiKeyRow | undefined> {
  const [row] = await sql.unsafe<ApiKeyRow[]>(`select ${COLUMNS} from api_keys where id = $1`, [keyId]);
  return row;
}

export interface AgentSummaryRow {
  id: string;
  name: string;
  agent_type: 'VOICE' | 'CHAT';
  is_active: boolean;
}

export async function findAgent(
  sql: Queryable,
  organisationId: string,
  agentId: string,
): Promise<AgentSummaryRow | undefined> {
  const [row] = await sql<AgentSummaryRow[]>`select id, name, agent_type, is_active from agents
    where id = ${agentId} and organisation_id = ${organisationId} and deleted_at is null`;
  return row;
}

/**
 * The agent's type, its row locked for the transaction: minting widget tokens for one agent takes turns on it, so
 * the limit of active tokens holds under races.
 */
export async function lockAgentType(
  sql: Queryable,
  organisationId: string,
  agentId: string,
): Promise<string | undefined> {
  const [agent] = await sql<{ agent_type: string }[]>`select agent_type from agents
    where id = ${agentId} and organisation_id = ${organisationId} and deleted_at is null for update`;
  return agent?.agent_type;
}

/** Revokes a key still active; the moment it was revoked, or undefined when it already was. */
export async function revokeActiveKey(sql: Queryable, keyId: string): Promise<Date | undefined> {
  const [row] = await sql<{ revoked_at: Date }[]>`update api_keys set revoked_at = now()
    where id = ${keyId} and revoked_at is null returning revoked_at`;
  return row?.revoked_at;
}

/** Revokes a key whatever its state (revoking twice keeps the first moment); undefined for no such key. */
export async function revokeKeyById(sql: Queryable, keyId: string): Promise<Date | undefined> {
  const [row] = await sql<{ revoked_at: Date }[]>`
    update api_keys set revoked_at = coalesce(revoked_at, now()) where id = ${keyId} returning revoked_at`;
  return row?.revoked_at;
}

/** A key with everything a request needs to act as it: its owner's role and the organisation's features. */
export interface PrincipalKeyRow {
  id: string;
  name: string;
  kind: 'management' | 'widget';
  organisation_id: string;
  user_id: string;
  key_hash: string;
  scopes: string[];
  agent_id: string | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  role: Role | null;
  owner_id: string;
  features: string[];
  audience: string | null;
}

/** The key of this prefix, when its user and organisation are active. */
export async function findPrincipalKey(sql: Queryable, prefix: string): Promise<PrincipalKeyRow | undefined> {
  const [row] = await sql<PrincipalKeyRow[]>`
    select k.id, k.name, k.kind, k.organisation_id, k.user_id, k.key_hash, k.scopes, k.agent_id, k.revoked_at,
           k.last_used_at, k.audience, m.role, o.owner_id, o.features
      from api_keys k
      join users u on u.id = k.user_id and u.is_active and u.deleted_at is null
      join organisations o on o.id = k.organisation_id and o.is_active and o.deleted_at is null
      left join members m on m.organisation_id = k.organisation_id and m.user_id = k.user_id
     where k.key_prefix = ${prefix}`;
  return row;
}

export async function touchKeyLastUsed(sql: Queryable, keyId: string): Promise<void> {
  await sql`update api_keys set last_used_at = now() where id = ${keyId}`;
}

export interface CreatedKey {
  id: string;
  /** The secret value: shown once, never stored. */
  key: string;
  prefix: string;
  scopes: readonly Scope[];
}

export interface ApiKeyInput {
  organisationId: string;
  userId: string;
  name: string;
  scopes: readonly Scope[];
  kind?: 'management' | 'widget';
  agentId?: string | null;
  aiHost?: string | null;
  /** The resource (RFC 8707) a key issued through OAuth is for; none for keys made by hand. */
  audience?: string | null;
}

/** A new API key (or widget token) of a user; its secret value is in the answer, only its hash is stored. */
export async function insertApiKey(sql: Queryable, input: ApiKeyInput): Promise<CreatedKey> {
  const generated = generateApiKey();
  const id = newId();
  await sql`insert into api_keys (id, organisation_id, user_id, kind, name, key_prefix, key_hash, last4, scopes, agent_id, ai_host, audience)
            values (${id}, ${input.organisationId}, ${input.userId}, ${input.kind ?? 'management'}, ${input.name},
                    ${generated.prefix}, ${generated.hash}, ${generated.last4}, ${[...input.scopes]},
                    ${input.agentId ?? null}, ${input.aiHost ?? null}, ${input.audience ?? null})`;
  return { id, key: generated.value, prefix: generated.prefix, scopes: input.scopes };
}
