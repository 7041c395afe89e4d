/**
 * SQL of SIP providers, trunks and configurations (migration 013_sip.sql). Trunk passwords arrive here already
 * sealed (trunk-secrets.ts); configurations are read with their provider joined, as the API shows them.
 */
import type { Queryable, Sql } from '../db/database.ts';
import type {
  SipConfigurationJoinedRow,
  SipConfigurationType,
  SipProviderRow,
  SipTransportName,
  SipTrunkRow,
} from './records.ts';

export async function listProviders(sql: Queryable): Promise<SipProviderRow[]> {
  return sql<SipProviderRow[]>`select * from sip_providers order by created_at, id`;
}

/** An active provider by id or name. */
export async function findActiveProvider(sql: Queryable, idOrName: string): Promise<SipProviderRow | undefined> {
  const [row] = await sql<SipProviderRow[]>`select * from sip_providers
    where (id = ${idOrName} or name = ${idOrName}) and is_active limit 1`;
  return row;
}

export interface TrunkFields {
  name: string;
  host: string;
  port: number;
  transport: SipTransportName;
  username: string | null;
  /** The key ring's ciphertext; null: no password. */
  passwordSecret: string | null;
  sourceAddresses: string[];
  register: boolean;
  isActive: boolean;
}

export async function insertTrunk(
  sql: Queryable,
  id: string,
  organisationId: string,
  fields: TrunkFields,
): Promise<SipTrunkRow> {
  const [row] = await sql<SipTrunkRow[]>`insert into sip_trunks
      (id, organisation_id, name, host, port, transport, username, password_secret, source_addresses, register, is_active)
    values (${id}, ${organisationId}, ${fields.name}, ${fields.host}, ${fields.port}, ${fields.transport},
            ${fields.username}, ${fields.passwordSecret}, ${fields.sourceAddresses}, ${fields.register}, ${fields.isActive})
    returning *`;
  return row!;
}

export async function updateTrunk(sql: Queryable, id: string, fields: TrunkFields): Promise<SipTrunkRow | undefined> {
  const [row] = await sql<SipTrunkRow[]>`update sip_trunks set
      name = ${fields.name}, host = ${fields.host}, port = ${fields.port}, transport = ${fields.transport},
      username = ${fields.username}, password_secret = ${fields.passwordSecret},
      source_addresses = ${fields.sourceAddresses}, register = ${fields.register}, is_active = ${fields.isActive},
      updated_at = now()
    where id = ${id} returning *`;
  return row;
}

/** A trunk of the organisation; `lock` holds it for the caller's transaction. */
export async function findTrunk(
  sql: Queryable,
  organisationId: string,
  id: string,
  lock = false,
): Promise<SipTrunkRow | undefined> {
  const [row] = lock
    ? await sql<
        SipTrunkRow[]
      >`select * from sip_trunks where id = ${id} and organisation_id = ${organisationId} for update`
    : await sql<SipTrunkRow[]>`select * from sip_trunks where id = ${id} and organisation_id = ${organisationId}`;
  return row;
}

/** A trunk by id, whatever its organisation (a 403 needs to know it exists elsewhere). */
export async function findTrunkAnywhere(sql: Queryable, id: string): Promise<SipTrunkRow | undefined> {
  const [row] = await sql<SipTrunkRow[]>`select * from sip_trunks where id = ${id}`;
  return row;
}

export async function listTrunks(sql: Queryable, organisationId: string): Promise<SipTrunkRow[]> {
  return sql<SipTrunkRow[]>`select * from sip_trunks where organisation_id = ${organisationId} order by created_at, id`;
}

/** Deletes a trunk; throws the foreign-key violation while configurations use it. */
export async function deleteTrunk(sql: Queryable, id: string): Promise<boolean> {
  const rows = await sql`delete from sip_trunks where id = ${id} returning id`;
  return rows.length > 0;
}

export interface ConfigurationFields {
  sipTrunkId: string;
  type: SipConfigurationType;
  providerId: string;
  agentId: string | null;
  phoneNumber: string;
  maxConcurrentCalls: number;
  maxQueueSize: number;
  callTimeoutMs: number;
  callingScope: string;
  allowedCountries: string[];
  sipReferEnabled: boolean;
  customerRentalPerMonthMinorE4: number;
  customerInboundSurchargePerMinMinorE4: number;
  customerOutboundSurchargePerMinMinorE4: number;
  isActive: boolean;
}

const CONFIGURATION_COLUMNS = (sql: Queryable) => sql`c.*,
  p.name as provider_name, p.display_name as provider_display_name, p.is_system as provider_is_system,
  p.is_active as provider_is_active, p.created_at as provider_created_at, p.updated_at as provider_updated_at`;

export async function insertConfiguration(
  sql: Queryable,
  id: string,
  organisationId: string,
  f: ConfigurationFields,
): Promise<void> {
  await sql`insert into sip_configurations
      (id, organisation_id, sip_trunk_id, type, provider_id, agent_id, phone_number, max_concurrent_calls,
       max_queue_size, call_timeout_ms, calling_scope, allowed_countries, sip_refer_enabled,
       customer_rental_per_month_minor_e4, customer_inbound_surcharge_per_min_minor_e4,
       customer_outbound_surcharge_per_min_minor_e4, is_active)
    values (${id}, ${organisationId}, ${f.sipTrunkId}, ${f.type}, ${f.providerId}, ${f.agentId}, ${f.phoneNumber},
            ${f.maxConcurrentCalls}, ${f.maxQueueSize}, ${f.callTimeoutMs}, ${f.callingScope}, ${f.allowedCountries},
            ${f.sipReferEnabled}, ${f.customerRentalPerMonthMinorE4}, ${f.customerInboundSurchargePerMinMinorE4},
            ${f.customerOutboundSurchargePerMinMinorE4}, ${f.isActive})`;
}

export async function updateConfiguration(sql: Queryable, id: string, f: ConfigurationFields): Promise<void> {
  await sql`update sip_configurations set
      sip_trunk_id = ${f.sipTrunkId}, type = ${f.type}, provider_id = ${f.providerId}, agent_id = ${f.agentId},
      phone_number = ${f.phoneNumber}, max_concurrent_calls = ${f.maxConcurrentCalls},
      max_queue_size = ${f.maxQueueSize}, call_timeout_ms = ${f.callTimeoutMs}, calling_scope = ${f.callingScope},
      allowed_countries = ${f.allowedCountries}, sip_refer_enabled = ${f.sipReferEnabled},
      customer_rental_per_month_minor_e4 = ${f.customerRentalPerMonthMinorE4},
      customer_inbound_surcharge_per_min_minor_e4 = ${f.customerInboundSurchargePerMinMinorE4},
      customer_outbound_surcharge_per_min_minor_e4 = ${f.customerOutboundSurchargePerMinMinorE4},
      is_active = ${f.isActive}, updated_at = now()
    where id = ${id}`;
}

/** A configuration by id, whatever its organisation (GET /sip-config/{id} answers 403 for another's). */
export async function findConfiguration(sql: Queryable, id: string): Promise<SipConfigurationJoinedRow | undefined> {
  const [row] = await sql<SipConfigurationJoinedRow[]>`select ${CONFIGURATION_COLUMNS(sql)}
    from sip_configurations c join sip_providers p on p.id = c.provider_id where c.id = ${id}`;
  return row;
}

/** The organisation's configurations, oldest first; only one type when `type` is given. */
export async function listConfigurations(
  sql: Queryable,
  organisationId: string,
  type?: SipConfigurationType,
): Promise<SipConfigurationJoinedRow[]> {
  return sql<SipConfigurationJoinedRow[]>`select ${CONFIGURATION_COLUMNS(sql)}
    from sip_configurations c join sip_providers p on p.id = c.provider_id
    where c.organisation_id = ${organisationId} ${type ? sql`and c.type = ${type}` : sql``}
    order by c.created_at, c.id`;
}

export async function deleteConfiguration(sql: Queryable, id: string): Promise<boolean> {
  const rows = await sql`delete from sip_configurations where id = ${id} returning id`;
  return rows.length > 0;
}

/** Whether the trunk carries any configuration (a trunk in use is not deleted). */
export async function trunkInUse(sql: Queryable, trunkId: string): Promise<boolean> {
  const [row] = await sql<{ used: boolean }[]>`select exists (
    select 1 from sip_configurations where sip_trunk_id = ${trunkId}) as used`;
  return row!.used;
}

/** A configuration with its trunk, as call routing needs it. */
export type RoutableConfiguration = SipConfigurationJoinedRow & {
  trunk_host: string;
  trunk_port: number;
  trunk_transport: SipTransportName;
  trunk_username: string | null;
  trunk_password_secret: string | null;
  trunk_source_addresses: string[];
};

const ROUTABLE = (sql: Queryable) => sql`${CONFIGURATION_COLUMNS(sql)},
  t.host as trunk_host, t.port as trunk_port, t.transport as trunk_transport, t.username as trunk_username,
  t.password_secret as trunk_password_secret, t.source_addresses as trunk_source_addresses`;

/** The active INBOUND configuration answering `phoneNumber` on an active trunk (at most one: a unique index). */
export async function findInboundByNumber(
  sql: Queryable,
  phoneNumber: string,
): Promise<RoutableConfiguration | undefined> {
  const [row] = await sql<RoutableConfiguration[]>`select ${ROUTABLE(sql)}
    from sip_configurations c join sip_providers p on p.id = c.provider_id join sip_trunks t on t.id = c.sip_trunk_id
    where c.phone_number = ${phoneNumber} and c.type = 'INBOUND' and c.is_active and t.is_active and p.is_active`;
  return row;
}

/**
 * The organisation's active OUTBOUND configurations on active trunks that `agentId` may dial out from: those of
 * that agent first, then those of no agent; oldest first within each. With `phoneNumber`, only that caller number.
 */
export async function findOutboundFor(
  sql: Queryable,
  organisationId: string,
  agentId: string,
  phoneNumber: string | undefined,
): Promise<RoutableConfiguration | undefined> {
  const [row] = await sql<RoutableConfiguration[]>`select ${ROUTABLE(sql)}
    from sip_configurations c join sip_providers p on p.id = c.provider_id join sip_trunks t on t.id = c.sip_trunk_id
    where c.organisation_id = ${organisationId} and c.type = 'OUTBOUND' and c.is_active and t.is_active
      and p.is_active and (c.agent_id is null or c.agent_id = ${agentId})
      ${phoneNumber ? sql`and c.phone_number = ${phoneNumber}` : sql``}
    order by (c.agent_id is null), c.created_at, c.id
    limit 1`;
  return row;
}

/** The configuration of a recorded call, with its trunk, whatever its state now. */
export async function findRoutable(sql: Queryable, id: string): Promise<RoutableConfiguration | undefined> {
  const [row] = await sql<RoutableConfiguration[]>`select ${ROUTABLE(sql)}
    from sip_configurations c join sip_providers p on p.id = c.provider_id join sip_trunks t on t.id = c.sip_trunk_id
    where c.id = ${id}`;
  return row;
}

/**
 * Locks the configuration's row for the caller's transaction and counts its live calls: placements over one
 * configuration, on any instance, are counted one after another (like billing/call-admission.ts's organisation lock).
 * A QUEUED call holds its line only while younger than `queuedWithinMs`.
 */
export async function lockAndCountLive(
  tx: Queryable,
  configurationId: string,
  queuedWithinMs: number,
): Promise<number> {
  await tx`select id from sip_configurations where id = ${configurationId} for update`;
  return countLive(tx, configurationId, queuedWithinMs);
}

/** The configuration's live calls, read without its lock (the campaign dialler's estimate of its free lines). */
export async function countLive(sql: Queryable, configurationId: string, queuedWithinMs: number): Promise<number> {
  const [row] = await sql<{ live: number }[]>`
    select count(*)::int as live from call_records
     where sip_configuration_id = ${configurationId} and ended_at is null
       and call_status in ('QUEUED', 'INITIATED', 'RINGING', 'IN_PROGRESS')
       and (call_status <> 'QUEUED' or created_at > now() - make_interval(secs => ${queuedWithinMs / 1000}))`;
  return row!.live;
}

/** Whether a call went over a SIP configuration (its leg is the SIP gateway's to hang up). */
export async function isSipGatewayCall(sql: Sql | Queryable, callId: string): Promise<boolean> {
  const [row] = await sql<{ sip: boolean }[]>`select sip_configuration_id is not null as sip
    from call_records where id = ${callId}`;
  return row?.sip ?? false;
}
