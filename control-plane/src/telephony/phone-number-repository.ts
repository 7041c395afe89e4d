/**
 * Phone numbers (spec document 1, Phone number): the SQL every carrier shares, and the record the API returns
 * with `agent`, `assignedAgents` (the agent answering on the number) and `outboundAgents` (agents dialling out
 * with it as their caller number) computed from the agents table on every read.
 */
import type { Queryable, Sql } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import type { Carrier, RemoteNumber } from './carrier.ts';

export const ROUTING_STATUSES = ['ASSIGNED', 'PURCHASED', 'READY', 'NEEDS_SETUP'] as const;
export type RoutingStatus = (typeof ROUTING_STATUSES)[number];
/** A routing status a number has while no agent answers on it. */
export type UnassignedStatus = Exclude<RoutingStatus, 'ASSIGNED'>;

export interface AgentRef {
  id: string;
  name: string;
}

export interface PhoneNumberRecord {
  id: string;
  organisationId: string;
  integrationId: string | null;
  provider: Carrier;
  phoneNumber: string;
  countryCode: string | null;
  providerNumberId: string | null;
  friendlyName: string | null;
  status: 'ACTIVE' | 'INACTIVE';
  routingStatus: RoutingStatus | null;
  capabilities: { voice: boolean; sms: boolean };
  agentId: string | null;
  agent: AgentRef | null;
  assignedAgents: AgentRef[];
  outboundAgents: AgentRef[];
  customerRatePerMin: number | null;
  monthlyCostUsd: number | null;
  /** Where the number may call (calls/calling-scope.ts). */
  callingScope: string;
  allowedCountries: string[];
  /** Calls the number may have live at once (its lines); null: no cap of its own, the plan's concurrentCalls bound it. */
  maxConcurrentCalls: number | null;
  metadata: {
    source: string | null;
    type: string | null;
    region: string | null;
    capabilities: Record<string, unknown>;
  } & Record<string, unknown>;
  createdAt: Date;
  updatedAt: Date;
}

export interface PhoneNumberRow {
  id: string;
  organisation_id: string;
  integration_id: string | null;
  provider: Carrier;
  phone_number: string;
  country_code: string | null;
  provider_number_id: string | null;
  friendly_name: string | null;
  status: 'ACTIVE' | 'INACTIVE';
  routing_status: RoutingStatus | null;
  unassigned_routing_status: UnassignedStatus | null;
  capabilities: { voice?: boolean; sms?: boolean };
  agent_id: string | null;
  metadata: Record<string, unknown>;
  customer_rate_per_min: string | null;
  monthly_cost_usd: string | null;
  calling_scope: string;
  allowed_countries: string[];
  max_concurrent_calls: number | null;
  created_at: Date;
  updated_at: Date;
}

type RecordRow = PhoneNumberRow & { agent_name: string | null; outbound_agents: AgentRef[] };

const SELECT_RECORD = `
  select p.*, a.name as agent_name,
         coalesce((select json_agg(json_build_object('id', o.id, 'name', o.name) order by o.created_at, o.id)
                     from agents o
                    where o.organisation_id = p.organisation_id and o.calling_number = p.phone_number
                      and o.deleted_at is null), '[]'::json) as outbound_agents
    from phone_numbers p
    left join agents a on a.id = p.agent_id and a.deleted_at is null`;

/** What routingStatus reads: ASSIGNED while an agent answers; the status it returns to once none does. */
export function routingStatusOf(
  row: Pick<PhoneNumberRow, 'agent_id' | 'routing_status' | 'unassigned_routing_status'>,
): RoutingStatus | null {
  if (row.agent_id) return 'ASSIGNED';
  // An agent deleted while assigned leaves agent_id null behind it (agents' own delete): the number is free again.
  if (row.routing_status === 'ASSIGNED') return row.unassigned_routing_status ?? 'READY';
  return row.routing_status;
}

function phoneNumberRecord(row: RecordRow): PhoneNumberRecord {
  const agent = row.agent_id && row.agent_name !== null ? { id: row.agent_id, name: row.agent_name } : null;
  const metadata = row.metadata ?? {};
  return {
    id: row.id,
    organisationId: row.organisation_id,
    integrationId: row.integration_id,
    provider: row.provider,
    phoneNumber: row.phone_number,
    countryCode: row.country_code,
    providerNumberId: row.provider_number_id,
    friendlyName: row.friendly_name,
    status: row.status,
    routingStatus: routingStatusOf(row),
    capabilities: { voice: row.capabilities?.voice === true, sms: row.capabilities?.sms === true },
    agentId: agent?.id ?? null,
    agent,
    assignedAgents: agent ? [agent] : [],
    outboundAgents: row.outbound_agents,
    customerRatePerMin: row.customer_rate_per_min === null ? null : Number(row.customer_rate_per_min),
    monthlyCostUsd: row.monthly_cost_usd === null ? null : Number(row.monthly_cost_usd),
    callingScope: row.calling_scope,
    allowedCountries: row.allowed_countries,
    maxConcurrentCalls: row.max_concurrent_calls,
    metadata: {
      ...metadata,
      source: (metadata.source as string | undefined) ?? null,
      type: (metadata.type as string | undefined) ?? null,
      region: (metadata.region as string | undefined) ?? null,
      capabilities: (metadata.capabilities as Record<string, unknown> | undefined) ?? {},
    },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The organisation's active numbers, newest first (spec: GET /telephony/numbers). */
export async function listActiveNumbers(sql: Queryable, organisationId: string): Promise<PhoneNumberRecord[]> {
  const rows = await sql.unsafe<RecordRow[]>(
    `${SELECT_RECORD} where p.organisation_id = $1 and p.status = 'ACTIVE' and p.deleted_at is null
      order by p.created_at desc, p.id desc`,
    [organisationId],
  );
  return rows.map(phoneNumberRecord);
}

/** One number of the organisation as the API shows it, active or not (never a deleted one). */
export async function readNumber(
  sql: Queryable,
  organisationId: string,
  id: string,
): Promise<PhoneNumberRecord | undefined> {
  const [row] = await sql.unsafe<RecordRow[]>(
    `${SELECT_RECORD} where p.id = $1 and p.organisation_id = $2 and p.deleted_at is null`,
    [id, organisationId],
  );
  return row && phoneNumberRecord(row);
}

/** An active number's row; `lock` holds it until the transaction ends. */
export async function findActiveNumber(
  sql: Queryable,
  organisationId: string,
  id: string,
  lock = false,
): Promise<PhoneNumberRow | undefined> {
  const [row] = await sql.unsafe<PhoneNumberRow[]>(
    `select * from phone_numbers where id = $1 and organisation_id = $2 and status = 'ACTIVE' and deleted_at is null${lock ? ' for update' : ''}`,
    [id, organisationId],
  );
  return row;
}

/** An active number of the organisation by its E.164 value (a call's calling number, an inbound call's number). */
export async function findActiveNumberByValue(
  sql: Queryable,
  organisationId: string,
  phoneNumber: string,
  provider?: Carrier,
): Promise<PhoneNumberRow | undefined> {
  const [row] = await sql<PhoneNumberRow[]>`select * from phone_numbers
    where organisation_id = ${organisationId} and phone_number = ${phoneNumber}
      and (${provider ?? null}::text is null or provider = ${provider ?? null})
      and status = 'ACTIVE' and deleted_at is null`;
  return row;
}

/** The organisation an active number at `provider` belongs to (the one that updated it last, should two). */
export async function organisationOfNumber(
  sql: Queryable,
  phoneNumber: string,
  provider: Carrier,
): Promise<string | undefined> {
  const [row] = await sql<{ organisation_id: string }[]>`select organisation_id from phone_numbers
    where phone_number = ${phoneNumber} and provider = ${provider} and status = 'ACTIVE' and deleted_at is null
    order by updated_at desc limit 1`;
  return row?.organisation_id;
}

/** The number's columns that describe it at the carrier, from what the carrier reports. */
export function carrierColumns(remote: RemoteNumber, source: string): Record<string, unknown> {
  return {
    provider_number_id: remote.providerNumberId,
    friendly_name: remote.friendlyName,
    country_code: remote.countryCode,
    capabilities: remote.capabilities,
    metadata: { source, type: remote.type, region: remote.region, capabilities: remote.carrierCapabilities },
  };
}

export interface SavePurchased {
  organisationId: string;
  provider: Carrier;
  integrationId: string | null;
  remote: RemoteNumber;
  /** READY for numbers bought and routed by Parley itself (India), PURCHASED for carrier-b purchases. */
  routingStatus: UnassignedStatus;
  customerRatePerMin?: number | null;
  monthlyCostUsd?: number | null;
}

/**
 * Records a number just bought: ACTIVE, no agent, with the given routing status. A row of the same number the
 * organisation had before (retired, or on another carrier) is taken over rather than duplicated. Returns its id.
 */
export async function savePurchasedNumber(sql: Queryable, input: SavePurchased): Promise<string> {
  const columns = carrierColumns(input.remote, 'purchase');
  const json = (value: unknown) => (sql as Sql).json(value as never);
  const [row] = await sql<{ id: string }[]>`
    insert into phone_numbers (id, organisation_id, integration_id, provider, phone_number, country_code, provider_number_id,
                               friendly_name, status, routing_status, unassigned_routing_status, capabilities, metadata,
                               customer_rate_per_min, monthly_cost_usd, last_synced_at)
    values (${newId()}, ${input.organisationId}, ${input.integrationId}, ${input.provider}, ${input.remote.phoneNumber},
            ${columns.country_code as string | null}, ${input.remote.providerNumberId}, ${input.remote.friendlyName}, 'ACTIVE',
            ${input.routingStatus}, ${input.routingStatus}, ${json(columns.capabilities)}, ${json(columns.metadata)},
            ${input.customerRatePerMin ?? null}, ${input.monthlyCostUsd ?? null}, now())
    on conflict (organisation_id, phone_number) where deleted_at is null do update set
      integration_id = excluded.integration_id, provider = excluded.provider, country_code = excluded.country_code,
      provider_number_id = excluded.provider_number_id, friendly_name = excluded.friendly_name, status = 'ACTIVE',
      routing_status = excluded.routing_status, unassigned_routing_status = excluded.unassigned_routing_status,
      capabilities = excluded.capabilities, metadata = excluded.metadata, agent_id = null,
      customer_rate_per_min = excluded.customer_rate_per_min, monthly_cost_usd = excluded.monthly_cost_usd,
      last_synced_at = now(), updated_at = now()
    returning id`;
  return row!.id;
}

/** Points the number's inbound calls at `agentId` (ASSIGNED), remembering where it returns once unassigned. */
export async function assignInboundAgent(
  sql: Queryable,
  id: string,
  agentId: string,
  returnsTo: UnassignedStatus,
): Promise<void> {
  await sql`update phone_numbers set agent_id = ${agentId}, routing_status = 'ASSIGNED', unassigned_routing_status = ${returnsTo},
    updated_at = now() where id = ${id}`;
}

/** Detaches the number from its agent; it returns to the status it had before assignment. */
export async function unassignInboundAgent(sql: Queryable, id: string): Promise<void> {
  await sql`update phone_numbers set agent_id = null,
    routing_status = case when routing_status = 'ASSIGNED' then coalesce(unassigned_routing_status, 'READY') else routing_status end,
    updated_at = now() where id = ${id}`;
}

export interface NumberInUse {
  agentId: string;
  agentName: string;
  phoneNumber: string;
  /** answers: the number routes inbound calls to the agent; dials: the agent calls out with it as caller number. */
  use: 'answers' | 'dials';
}

/** Agents (not deleted, paused ones included) answering on or dialling out from active numbers of an integration. */
export async function agentsUsingNumbers(sql: Queryable, integrationId: string): Promise<NumberInUse[]> {
  const rows = await sql<{ agent_id: string; agent_name: string; phone_number: string; answers: boolean }[]>`
    select a.id as agent_id, a.name as agent_name, p.phone_number, a.id = p.agent_id as answers
      from phone_numbers p
      join agents a on a.organisation_id = p.organisation_id and a.deleted_at is null
                   and (a.id = p.agent_id or a.calling_number = p.phone_number)
     where p.integration_id = ${integrationId} and p.status = 'ACTIVE' and p.deleted_at is null
     order by p.phone_number, a.name, a.id`;
  return rows.map((r) => ({
    agentId: r.agent_id,
    agentName: r.agent_name,
    phoneNumber: r.phone_number,
    use: r.answers ? 'answers' : 'dials',
  }));
}

/** Deactivates every active number of an integration (an account switched away from); returns how many. */
export async function retireNumbers(sql: Queryable, integrationId: string): Promise<number> {
  const rows = await sql`update phone_numbers set status = 'INACTIVE', agent_id = null,
      routing_status = case when routing_status = 'ASSIGNED' then unassigned_routing_status else routing_status end, updated_at = now()
    where integration_id = ${integrationId} and status = 'ACTIVE' and deleted_at is null returning id`;
  return rows.length;
}

/** Retires one number (a rented number given back): inactive, no agent, its routing as before assignment. */
export async function retireNumber(sql: Queryable, id: string): Promise<void> {
  await sql`update phone_numbers set status = 'INACTIVE', agent_id = null,
      routing_status = case when routing_status = 'ASSIGNED' then unassigned_routing_status else routing_status end, updated_at = now()
    where id = ${id} and deleted_at is null`;
}

/** Changes where the number may call; the number as the API shows it, or undefined when it is not the organisation's. */
export async function setCallingScope(
  sql: Queryable,
  organisationId: string,
  id: string,
  scope: { callingScope: string; allowedCountries: readonly string[] },
): Promise<PhoneNumberRecord | undefined> {
  const updated =
    await sql`update phone_numbers set calling_scope = ${scope.callingScope}, allowed_countries = ${scope.allowedCountries as string[]}, updated_at = now()
    where id = ${id} and organisation_id = ${organisationId} and deleted_at is null returning id`;
  return updated.length ? readNumber(sql, organisationId, id) : undefined;
}

/** Changes how many calls the number may have live at once (null: no cap of its own); as setCallingScope answers. */
export async function setCallLimit(
  sql: Queryable,
  organisationId: string,
  id: string,
  maxConcurrentCalls: number | null,
): Promise<PhoneNumberRecord | undefined> {
  const updated = await sql`update phone_numbers set max_concurrent_calls = ${maxConcurrentCalls}, updated_at = now()
    where id = ${id} and organisation_id = ${organisationId} and deleted_at is null returning id`;
  return updated.length ? readNumber(sql, organisationId, id) : undefined;
}

/** The organisation's numbers with these E.164 values (any status), locked for the caller's transaction. */
export async function lockNumbersByValue(
  sql: Queryable,
  organisationId: string,
  phoneNumbers: readonly string[],
): Promise<PhoneNumberRow[]> {
  return sql<PhoneNumberRow[]>`select * from phone_numbers
    where organisation_id = ${organisationId} and deleted_at is null and phone_number = any(${[...phoneNumbers]}::text[])
    for update`;
}

/** A new number row per entry (column name → value; capabilities and metadata as plain objects). */
export async function insertNumbers(sql: Queryable, rows: readonly Record<string, unknown>[]): Promise<void> {
  if (!rows.length) return;
  const json = (value: unknown) => (sql as Sql).json(value as never);
  const values = rows.map((row) => ({ ...row, capabilities: json(row.capabilities), metadata: json(row.metadata) }));
  await sql`insert into phone_numbers ${(sql as Sql)(values)}`;
}

export interface NumberRefresh {
  integrationId: string;
  provider: Carrier;
  remote: RemoteNumber;
  /** carrierColumns(remote, source). */
  columns: ReturnType<typeof carrierColumns>;
  routingStatus: RoutingStatus;
  unassignedRoutingStatus: UnassignedStatus;
  /** The agent kept on it (an active number keeps its agent; one active again starts with none). */
  agentId: string | null;
}

/** A number seen on the account again: active, on this integration, its carrier fields refreshed. */
export async function refreshNumber(sql: Queryable, id: string, refresh: NumberRefresh): Promise<void> {
  const json = (value: unknown) => (sql as Sql).json(value as never);
  const { remote, columns } = refresh;
  await sql`update phone_numbers set integration_id = ${refresh.integrationId}, provider = ${refresh.provider},
      provider_number_id = ${remote.providerNumberId}, friendly_name = ${remote.friendlyName},
      country_code = coalesce(${remote.countryCode}, country_code), capabilities = ${json(columns.capabilities)},
      metadata = metadata || ${json(columns.metadata)}, status = 'ACTIVE', routing_status = ${refresh.routingStatus},
      unassigned_routing_status = ${refresh.unassignedRoutingStatus}, agent_id = ${refresh.agentId},
      last_synced_at = now(), updated_at = now()
    where id = ${id}`;
}

/**
 * Deactivates the integration's active numbers that a whole read started at `readStartedAt` did not list; a number
 * changed since the read began (bought meanwhile) is left alone. Returns how many.
 */
export async function deactivateUnlisted(
  sql: Queryable,
  scope: { organisationId: string; integrationId: string; listed: readonly string[]; readStartedAt: string },
): Promise<number> {
  const gone = await sql`update phone_numbers set status = 'INACTIVE', agent_id = null,
      routing_status = case when routing_status = 'ASSIGNED' then unassigned_routing_status else routing_status end,
      updated_at = now()
    where organisation_id = ${scope.organisationId} and integration_id = ${scope.integrationId} and status = 'ACTIVE'
      and deleted_at is null and updated_at < ${scope.readStartedAt}::timestamptz
      and not (phone_number = any(${[...scope.listed]}::text[]))
    returning id`;
  return gone.length;
}

/** The id of the organisation's number with this E.164 value, whatever its status. */
export async function numberIdByValue(
  sql: Queryable,
  organisationId: string,
  phoneNumber: string,
): Promise<string | undefined> {
  const [row] = await sql<{ id: string }[]>`select id from phone_numbers
    where organisation_id = ${organisationId} and phone_number = ${phoneNumber} and deleted_at is null`;
  return row?.id;
}

/** Of these E.164 values, the ones the organisation has active on a carrier other than `provider`. */
export async function activeOnOtherCarriers(
  sql: Queryable,
  organisationId: string,
  provider: Carrier,
  phoneNumbers: readonly string[],
): Promise<Set<string>> {
  if (!phoneNumbers.length) return new Set();
  const rows = await sql<{ phone_number: string }[]>`select phone_number from phone_numbers
    where organisation_id = ${organisationId} and status = 'ACTIVE' and deleted_at is null and provider <> ${provider}
      and phone_number = any(${[...phoneNumbers]}::text[])`;
  return new Set(rows.map((r) => r.phone_number));
}

/** Writes each number's routing record (`metadata.routing`), per E.164 value, for the integration's numbers only. */
export async function recordNumberRouting(
  sql: Queryable,
  integrationId: string,
  entries: readonly { phone_number: string; routing: unknown }[],
): Promise<void> {
  if (!entries.length) return;
  await sql`update phone_numbers p set metadata = p.metadata || jsonb_build_object('routing', v.routing)
    from jsonb_to_recordset(${(sql as Sql).json(entries as never)}) as v(phone_number text, routing jsonb)
    where p.integration_id = ${integrationId} and p.phone_number = v.phone_number and p.deleted_at is null`;
}

/** Merges `fields` into one number's metadata. */
export async function mergeNumberMetadata(sql: Queryable, id: string, fields: Record<string, unknown>): Promise<void> {
  await sql`update phone_numbers set metadata = metadata || ${(sql as Sql).json(fields as never)} where id = ${id}`;
}
