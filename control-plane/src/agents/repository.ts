/** SQL of agents, and the reads of other tables the agent rules need (organisation settings, phone numbers). */
import type { Queryable, Sql } from '../db/database.ts';
import { COLUMN_OF, JSON_FIELDS, type AgentRow, type AgentState } from './records.ts';
import type { AgentType, Carrier } from './field-schemas.ts';

const SELECT = `select a.*, u.name as created_by_name, u.email as created_by_email
                  from agents a left join users u on u.id = a.created_by_id`;

/** An agent of the organisation that is not deleted; `lock` holds it until the transaction ends. */
export async function findAgent(
  sql: Queryable,
  organisationId: string,
  id: string,
  lock = false,
): Promise<AgentRow | undefined> {
  const [row] = await sql.unsafe<AgentRow[]>(
    `${SELECT} where a.id = $1 and a.organisation_id = $2 and a.deleted_at is null${lock ? ' for update of a' : ''}`,
    [id, organisationId],
  );
  return row;
}

/** Columns and values of some state fields, JSON fields wrapped so the driver sends them as jsonb. */
function columns(sql: Queryable, state: Partial<AgentState>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(state) as [keyof AgentState, unknown][]) {
    out[COLUMN_OF[field]] = JSON_FIELDS.has(field) && value !== null ? (sql as Sql).json(value as never) : value;
  }
  return out;
}

export async function insertAgent(
  sql: Queryable,
  agent: { id: string; organisationId: string; createdById: string; state: AgentState },
): Promise<void> {
  const row = {
    id: agent.id,
    organisation_id: agent.organisationId,
    created_by_id: agent.createdById,
    ...columns(sql, agent.state),
  };
  await sql`insert into agents ${(sql as Sql)(row)}`;
}

/** Writes the changed fields, counts the change in `version`, and stamps updated_at. */
export async function updateAgent(sql: Queryable, id: string, changes: Partial<AgentState>): Promise<void> {
  await sql`update agents set ${(sql as Sql)(columns(sql, changes))}, version = version + 1, updated_at = now() where id = ${id}`;
}

export interface ListFilters {
  agentType?: AgentType;
  isActive?: boolean;
  search?: string;
}

export async function listAgents(
  sql: Queryable,
  organisationId: string,
  filters: ListFilters,
  page: { limit: number; offset: number },
): Promise<{ rows: AgentRow[]; total: number }> {
  const where = ['a.organisation_id = $1', 'a.deleted_at is null'];
  const params: (string | number | boolean)[] = [organisationId];
  if (filters.agentType) where.push(`a.agent_type = $${params.push(filters.agentType)}`);
  if (filters.isActive !== undefined) where.push(`a.is_active = $${params.push(filters.isActive)}`);
  if (filters.search) {
    const like = `%${filters.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const n = params.push(like);
    where.push(`(a.name ilike $${n} or a.description ilike $${n})`);
  }
  const condition = where.join(' and ');
  const [counted] = await sql.unsafe<{ total: number }[]>(
    `select count(*)::int as total from agents a where ${condition}`,
    params,
  );
  const rows = await sql.unsafe<AgentRow[]>(
    `${SELECT} where ${condition} order by a.created_at desc, a.id desc limit $${params.length + 1} offset $${params.length + 2}`,
    [...params, page.limit, page.offset],
  );
  return { rows, total: counted?.total ?? 0 };
}

export interface OrganisationSettings {
  features: string[];
  instruction_budget: number;
}

/** Feature flags and instruction budget, read in the transaction that saves, so a change applies at once. */
export async function organisationSettings(
  sql: Queryable,
  organisationId: string,
): Promise<OrganisationSettings | undefined> {
  const [row] = await sql<OrganisationSettings[]>`select features, instruction_budget from organisations
    where id = ${organisationId} and deleted_at is null`;
  return row;
}

export async function agentType(sql: Queryable, organisationId: string, id: string): Promise<AgentType | undefined> {
  const [row] = await sql<{ agent_type: AgentType }[]>`select agent_type from agents
    where id = ${id} and organisation_id = ${organisationId} and deleted_at is null`;
  return row?.agent_type;
}

/** Live agents that name this one as their callback agent. */
export async function callbackDependants(sql: Queryable, id: string): Promise<string[]> {
  const rows = await sql<
    { id: string }[]
  >`select id from agents where callback_agent_id = ${id} and deleted_at is null order by id`;
  return rows.map((r) => r.id);
}

export async function activeWidgetTokenIds(sql: Queryable, agentId: string): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`select id from api_keys
    where agent_id = ${agentId} and kind = 'widget' and revoked_at is null order by id`;
  return rows.map((r) => r.id);
}

/**
 * Deletes an agent (soft: its calls and results keep their reference) and what hangs on it: its widget tokens are
 * revoked, chat agents calling back through it lose it, numbers answering with it are unassigned. Returns the
 * revoked token ids so caches can drop them.
 */
export async function deleteAgent(sql: Queryable, organisationId: string, id: string): Promise<string[]> {
  await sql`update agents set deleted_at = now(), is_active = false, updated_at = now()
    where id = ${id} and organisation_id = ${organisationId}`;
  const revoked = await sql<{ id: string }[]>`update api_keys set revoked_at = now()
    where agent_id = ${id} and kind = 'widget' and revoked_at is null returning id`;
  await sql`update agents set callback_agent_id = null, version = version + 1, updated_at = now()
    where callback_agent_id = ${id}`;
  await sql`update phone_numbers set agent_id = null, updated_at = now() where agent_id = ${id}`;
  return revoked.map((r) => r.id);
}

export interface PhoneNumberRow {
  phone_number: string;
  provider: Carrier;
  created_at: Date;
}

/** The organisation's active numbers, newest first. */
export async function activePhoneNumbers(sql: Queryable, organisationId: string): Promise<PhoneNumberRow[]> {
  return sql<PhoneNumberRow[]>`select phone_number, provider, created_at from phone_numbers
    where organisation_id = ${organisationId} and status = 'ACTIVE' and deleted_at is null
    order by created_at desc, id desc`;
}

export interface FlowAgentRow {
  id: string;
  name: string;
  is_active: boolean;
  updated_at: Date;
}

export async function flowAgents(sql: Queryable, organisationId: string): Promise<FlowAgentRow[]> {
  return sql<FlowAgentRow[]>`select id, name, is_active, updated_at from agents
    where organisation_id = ${organisationId} and builder_mode = 'FLOW' and deleted_at is null
    order by updated_at desc, id desc`;
}

/** The identity and task of an agent, deleted or not (a past call's analysis reads its agent's instructions). */
export async function agentInstructions(
  sql: Queryable,
  agentId: string,
): Promise<{ identity: string; task: string | null } | undefined> {
  const [agent] = await sql<{ identity: string; task: string | null }[]>`
    select agent_identity as identity, agent_task as task from agents where id = ${agentId}`;
  return agent;
}

/** What number routing needs of an agent: whether it is a voice agent and active. */
export interface RoutableAgentRow {
  id: string;
  name: string;
  agent_type: 'VOICE' | 'CHAT';
  is_active: boolean;
}

/**
 * The organisation's agent (not deleted); with `lock`, held `for share` until the caller's transaction ends, so it
 * cannot be deleted or paused while a number is being routed to it.
 */
export async function findRoutableAgent(
  sql: Queryable,
  organisationId: string,
  agentId: string,
  lock = false,
): Promise<RoutableAgentRow | undefined> {
  const [agent] = await sql.unsafe<RoutableAgentRow[]>(
    `select id, name, agent_type, is_active from agents where id = $1 and organisation_id = $2 and deleted_at is null${lock ? ' for share' : ''}`,
    [agentId, organisationId],
  );
  return agent;
}
