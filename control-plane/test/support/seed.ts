/** Test data made through the same code paths production uses (provisioning), plus rows no route creates yet. */
import type { Sql } from '../../src/db/database.ts';
import { post } from '../../src/wallet/ledger.ts';
import { newId } from '../../src/db/ids.ts';
import { provisionOrganisation, setFeatures, type Feature } from '../../src/accounts/provisioning.ts';
import { insertApiKey, type CreatedKey } from '../../src/auth/api-key-repository.ts';
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
  return {
    organisationId: created.organisationId,
    ownerId: created.userId,
    key: created.apiKey.key,
    keyId: created.apiKey.id,
  };
}

export async function seedUser(sql: Sql, name = 'Member Person'): Promise<string> {
  const id = newId();
  await sql`insert into users (id, name, email) values (${id}, ${name}, ${`user-${id}@example.com`})`;
  return id;
}

/** A user who is a member of the organisation with `role`, and a key of theirs with `scopes`. */
export async function seedMember(
  sql: Sql,
  organisationId: string,
  role: Role,
  scopes: readonly Scope[],
): Promise<{ userId: string } & CreatedKey> {
  const userId = await seedUser(sql, `${role.toLowerCase()} member`);
  await sql`insert into members (id, organisation_id, user_id, role) values (${newId()}, ${organisationId}, ${userId}, ${role})`;
  const key = await insertApiKey(sql, { organisationId, userId, name: `${role} key`, scopes });
  announce(organisationId);
  return { userId, ...key };
}

export async function seedAgent(
  sql: Sql,
  organisationId: string,
  agentType: 'VOICE' | 'CHAT' = 'CHAT',
): Promise<string> {
  const id = newId();
  await sql`insert into agents (id, organisation_id, name, agent_type) values (${id}, ${organisationId}, ${`${agentType} agent`}, ${agentType})`;
  return id;
}

/** Switches organisation features on (flow_agents, …), as `parley org features --enable` does. */
export async function enableFeatures(sql: Sql, organisationId: string, features: readonly Feature[]): Promise<void> {
  await setFeatures(sql, organisationId, features, []);
  announce(organisationId);
}

export async function disableFeatures(sql: Sql, organisationId: string, features: readonly Feature[]): Promise<void> {
  await setFeatures(sql, organisationId, [], features);
  announce(organisationId);
}

/** The organisation's instruction budget (characters); there is no route for it, operators set it in SQL. */
export async function setInstructionBudget(sql: Sql, organisationId: string, budget: number): Promise<void> {
  await sql`update organisations set instruction_budget = ${budget} where id = ${organisationId}`;
  announce(organisationId);
}

export interface PhoneNumberSeed {
  provider: 'carrier-a' | 'carrier-b' | 'carrier-c' | 'carrier-d' | 'carrier-e';
  phoneNumber: string;
  status?: 'ACTIVE' | 'INACTIVE';
  /** Seconds before now it was added; numbers are chosen newest first. */
  ageSeconds?: number;
  deleted?: boolean;
}

/** A phone number of the organisation (no route creates them until the telephony issue lands). */
export async function seedPhoneNumber(sql: Sql, organisationId: string, seed: PhoneNumberSeed): Promise<string> {
  const id = newId();
  await sql`insert into phone_numbers (id, organisation_id, provider, phone_number, status, created_at, deleted_at)
            values (${id}, ${organisationId}, ${seed.provider}, ${seed.phoneNumber}, ${seed.status ?? 'ACTIVE'},
                    now() - make_interval(secs => ${seed.ageSeconds ?? 0}), ${seed.deleted ? new Date() : null})`;
  return id;
}

export interface WalletSeed {
  /** Minor units (cents). */
  balanceMinor: number;
  currency?: string;
  hasPaid?: boolean;
}

/**
 * Sets the organisation's pay-as-you-go wallet to `balanceMinor` through the ledger (one ADJUSTMENT for the
 * difference), so the journal always replays to the stored balance.
 */
export async function seedWallet(sql: Sql, organisationId: string, seed: WalletSeed): Promise<void> {
  const currency = seed.currency ?? 'USD';
  await sql.begin(async (tx) => {
    await tx`insert into ledger_accounts (id, organisation_id, kind, name, currency, scale)
             values (${newId()}, ${organisationId}, 'WALLET', 'wallet', ${currency}, 1) on conflict do nothing`;
    const [account] = await tx<{ balance: string }[]>`
      select balance from ledger_accounts where organisation_id = ${organisationId} and kind = 'WALLET' for update`;
    const difference = seed.balanceMinor - Number(account!.balance);
    if (difference !== 0) {
      const result = await post(tx, {
        organisationId,
        wallet: 'WALLET',
        currency,
        type: 'ADJUSTMENT',
        amount: difference,
        counterparty: 'adjustments',
        referenceType: 'ADJUSTMENT',
        description: 'Test seed',
        actor: 'test seed',
        idempotencyKey: `seed:${newId()}`,
      });
      if (result.status !== 'posted') throw new Error(`seedWallet: ${result.status}`);
    }
    await tx`update ledger_accounts set has_paid = ${seed.hasPaid ?? seed.balanceMinor > 0}
             where organisation_id = ${organisationId} and kind = 'WALLET'`;
  });
}

/** Columns of call_records a test may set (snake_case, as stored); the rest take sensible defaults. */
export type CallSeed = Partial<{
  id: string;
  room_name: string;
  campaign_id: string | null;
  participant_name: string;
  phone_number: string | null;
  media_stream_url: string | null;
  created_by_id: string | null;
  custom_variables: Record<string, unknown>;
  scheduled_time: Date | null;
  calling_number: string | null;
  meta_data: Record<string, unknown>;
  call_type: 'sip' | 'web' | 'chat' | 'websocket';
  call_direction: 'INBOUND' | 'OUTBOUND';
  call_status: string | null;
  call_duration: number | null;
  call_outcome: string | null;
  recording_url: string | null;
  overview: Record<string, unknown> | null;
  actions: Record<string, unknown>;
  agent_result: Record<string, unknown> | null;
  source: string;
  use_case: string | null;
  dispatched_at: Date | null;
  answered_at: Date | null;
  ended_at: Date | null;
  last_event_at: Date | null;
  max_duration_ms: number | null;
  /** The engine running the call (the engine watch's key, docs/architecture.md §18). */
  engine_id: string | null;
  created_at: Date;
}>;

/**
 * A call record written straight into call_records (as call placement and the engine's events would leave it), for
 * tests of the reads: results, history, stats. Returns its id; its room name defaults to `room-<id>`.
 */
export async function seedCall(
  sql: Sql,
  organisationId: string,
  agentId: string,
  seed: CallSeed = {},
): Promise<string> {
  const id = seed.id ?? newId();
  const jsonColumns = new Set(['custom_variables', 'meta_data', 'overview', 'actions', 'agent_result']);
  const row: Record<string, unknown> = {
    id,
    organisation_id: organisationId,
    agent_id: agentId,
    room_name: `room-${id}`,
    call_type: 'sip',
    call_direction: 'OUTBOUND',
    source: 'api',
    participant_name: 'Caller',
  };
  for (const [column, value] of Object.entries(seed)) {
    row[column] = jsonColumns.has(column) && value !== null && value !== undefined ? sql.json(value as never) : value;
  }
  await sql`insert into call_records ${sql(row as never)}`;
  // As placement does: the record names its agent.
  await sql`update call_records c set agent_name = a.name from agents a where c.id = ${id} and a.id = c.agent_id and c.agent_name = ''`;
  return id;
}

/** Sets agent columns no seeding helper covers (timezone, results_config, builder_mode …), as stored. */
export async function updateAgentColumns(sql: Sql, agentId: string, columns: Record<string, unknown>): Promise<void> {
  const jsonColumns = new Set(['results_config', 'flow_definition', 'custom_variables']);
  const values = Object.fromEntries(
    Object.entries(columns).map(([k, v]) => [k, jsonColumns.has(k) && v !== null ? sql.json(v as never) : v]),
  );
  await sql`update agents set ${sql(values as never)} where id = ${agentId}`;
}
