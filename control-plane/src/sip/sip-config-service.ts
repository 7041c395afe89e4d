/**
 * SIP trunks and SIP configurations of an organisation (spec document 1 "SIP configuration", document 2 "SIP
 * configuration"; docs/architecture.md §12): reads as the spec shows them, and the writes it does not show —
 * create, partial update, delete — checked here field by field (400 naming the field), after the route schema.
 */
import { isIP } from 'node:net';
import { findAgent } from '../agents/repository.ts';
import type { Queryable, Sql } from '../db/database.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { newId } from '../db/ids.ts';
import { ApiError, badField, notFound } from '../errors.ts';
import type { KeyRing } from '../secrets/key-ring.ts';
import {
  sipConfigurationRecord,
  sipProviderRecord,
  sipTrunkRecord,
  type SipConfigurationRecord,
  type SipConfigurationType,
  type SipProviderRecord,
  type SipTransportName,
  type SipTrunkRecord,
} from './records.ts';
import { minorE4OfMajor } from './sip-money.ts';
import {
  deleteConfiguration,
  deleteTrunk,
  findActiveProvider,
  findConfiguration,
  findTrunk,
  findTrunkAnywhere,
  insertConfiguration,
  insertTrunk,
  listConfigurations,
  listProviders,
  listTrunks,
  trunkInUse,
  updateConfiguration,
  updateTrunk,
  type ConfigurationFields,
  type TrunkFields,
} from './sip-repository.ts';
import { registrationsOf } from './sip-registration-repository.ts';
import { sealTrunkPassword } from './trunk-secrets.ts';

/** The provider a configuration gets when none is named: the seeded system row of migration 013. */
export const DEFAULT_PROVIDER = 'generic';
/** A configuration's defaults (the columns' own, migration 013). */
export const CONFIGURATION_DEFAULTS = {
  maxConcurrentCalls: 10,
  maxQueueSize: 0,
  callTimeoutMs: 30_000,
  callingScope: 'SAME_COUNTRY',
} as const;
/** The SIP port when a trunk names none (RFC 3261 §19.1.2). */
export const DEFAULT_SIP_PORT = 5060;

/** A host name (RFC 1123 labels) or an IPv4/IPv6 literal. */
const HOST_NAME =
  /^(?=.{1,253}$)([a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*\.?$/;

export interface TrunkInput {
  name?: string;
  host?: string;
  port?: number;
  transport?: SipTransportName;
  username?: string | null;
  /** null clears it; absent keeps it. */
  password?: string | null;
  sourceAddresses?: string[];
  register?: boolean;
  isActive?: boolean;
}

export interface ConfigurationInput {
  sipTrunkId?: string;
  type?: SipConfigurationType;
  providerId?: string;
  agentId?: string | null;
  phoneNumber?: string;
  maxConcurrentCalls?: number;
  maxQueueSize?: number;
  callTimeoutMs?: number;
  callingScope?: string;
  allowedCountries?: string[];
  sipReferEnabled?: boolean;
  customerRentalPerMonth?: number;
  customerInboundSurchargePerMin?: number;
  customerOutboundSurchargePerMin?: number;
  isActive?: boolean;
}

export class SipConfigService {
  readonly #sql: Sql;
  readonly #keyRing: KeyRing | undefined;
  /** Told after every trunk write: the gateways fetch their registration list again (sip-registrations.ts). */
  readonly #trunksChanged: () => void;

  constructor(sql: Sql, keyRing: KeyRing | undefined, trunksChanged: () => void = () => {}) {
    this.#sql = sql;
    this.#keyRing = keyRing;
    this.#trunksChanged = trunksChanged;
  }

  async providers(): Promise<SipProviderRecord[]> {
    return (await listProviders(this.#sql)).map(sipProviderRecord);
  }

  async list(organisationId: string, type?: SipConfigurationType): Promise<SipConfigurationRecord[]> {
    return (await listConfigurations(this.#sql, organisationId, type)).map(sipConfigurationRecord);
  }

  /** One configuration: 404 when none has the id, 403 when another organisation's has it. */
  async get(organisationId: string, id: string): Promise<SipConfigurationRecord> {
    const row = await findConfiguration(this.#sql, id);
    if (!row) throw notFound('SIP configuration');
    if (row.organisation_id !== organisationId)
      throw new ApiError('forbidden', 'The SIP configuration belongs to another organisation');
    return sipConfigurationRecord(row);
  }

  async create(organisationId: string, input: ConfigurationInput): Promise<SipConfigurationRecord> {
    const id = newId();
    await this.#sql.begin(async (tx) => {
      const fields = await this.#configurationFields(tx, organisationId, input, undefined);
      await conflictIfTaken(() => insertConfiguration(tx, id, organisationId, fields), fields.phoneNumber);
    });
    return this.get(organisationId, id);
  }

  async update(organisationId: string, id: string, input: ConfigurationInput): Promise<SipConfigurationRecord> {
    const current = await this.get(organisationId, id);
    await this.#sql.begin(async (tx) => {
      const fields = await this.#configurationFields(tx, organisationId, input, current);
      await conflictIfTaken(() => updateConfiguration(tx, id, fields), fields.phoneNumber);
    });
    return this.get(organisationId, id);
  }

  async remove(organisationId: string, id: string): Promise<SipConfigurationRecord> {
    const current = await this.get(organisationId, id);
    await deleteConfiguration(this.#sql, id);
    return current;
  }

  async trunks(organisationId: string): Promise<SipTrunkRecord[]> {
    const rows = await listTrunks(this.#sql, organisationId);
    const registrations = await registrationsOf(
      this.#sql,
      rows.map((row) => row.id),
    );
    return rows.map((row) => sipTrunkRecord(row, registrations));
  }

  async trunk(organisationId: string, id: string): Promise<SipTrunkRecord> {
    const row = await findTrunkAnywhere(this.#sql, id);
    if (!row) throw notFound('SIP trunk');
    if (row.organisation_id !== organisationId)
      throw new ApiError('forbidden', 'The SIP trunk belongs to another organisation');
    return sipTrunkRecord(row, await registrationsOf(this.#sql, [row.id]));
  }

  async createTrunk(organisationId: string, input: TrunkInput): Promise<SipTrunkRecord> {
    const id = newId();
    const fields = this.#trunkFields(organisationId, id, input, undefined);
    const record = sipTrunkRecord(await insertTrunk(this.#sql, id, organisationId, fields));
    this.#trunksChanged();
    return record;
  }

  async updateTrunk(organisationId: string, id: string, input: TrunkInput): Promise<SipTrunkRecord> {
    await this.trunk(organisationId, id);
    await this.#sql.begin(async (tx) => {
      const current = await findTrunk(tx, organisationId, id, true);
      if (!current) throw notFound('SIP trunk');
      const fields = this.#trunkFields(organisationId, id, input, {
        name: current.name,
        host: current.host,
        port: current.port,
        transport: current.transport,
        username: current.username,
        passwordSecret: current.password_secret,
        sourceAddresses: current.source_addresses,
        register: current.register,
        isActive: current.is_active,
      });
      await updateTrunk(tx, id, fields);
    });
    this.#trunksChanged();
    return this.trunk(organisationId, id);
  }

  async removeTrunk(organisationId: string, id: string): Promise<SipTrunkRecord> {
    const trunk = await this.trunk(organisationId, id);
    if (await trunkInUse(this.#sql, id))
      throw new ApiError('conflict', 'The SIP trunk still carries SIP configurations: delete or move them first');
    await deleteTrunk(this.#sql, id);
    this.#trunksChanged();
    return trunk;
  }

  #trunkFields(organisationId: string, id: string, input: TrunkInput, current: TrunkFields | undefined): TrunkFields {
    const name = input.name ?? current?.name;
    if (name === undefined || !name.trim()) throw badField('name', 'is required');
    const host = input.host ?? current?.host;
    if (host === undefined) throw badField('host', 'is required');
    if (!isIP(host) && !HOST_NAME.test(host)) throw badField('host', 'must be a host name or an IP address');
    const sourceAddresses = input.sourceAddresses ?? current?.sourceAddresses ?? [];
    sourceAddresses.forEach((address, index) => {
      if (!isSourceAddress(address))
        throw badField(`sourceAddresses.${index}`, 'must be an IPv4 or IPv6 address, or a CIDR block (10.0.0.0/24)');
    });
    const username = input.username === undefined ? (current?.username ?? null) : input.username || null;
    let passwordSecret = current?.passwordSecret ?? null;
    if (input.password === null || input.password === '') passwordSecret = null;
    else if (input.password !== undefined)
      passwordSecret = sealTrunkPassword(this.#keyRing, organisationId, id, input.password);
    if (passwordSecret !== null && username === null)
      throw badField('username', 'is required when the trunk has a password (digest credentials)');
    const register = input.register ?? current?.register ?? false;
    if (register && username === null)
      throw badField('register', 'needs a username: the gateway registers sip:<username>@<host>');
    return {
      name: name.trim(),
      host,
      port: input.port ?? current?.port ?? DEFAULT_SIP_PORT,
      transport: input.transport ?? current?.transport ?? 'udp',
      username,
      passwordSecret,
      sourceAddresses,
      register,
      isActive: input.isActive ?? current?.isActive ?? true,
    };
  }

  async #configurationFields(
    sql: Queryable,
    organisationId: string,
    input: ConfigurationInput,
    current: SipConfigurationRecord | undefined,
  ): Promise<ConfigurationFields> {
    const sipTrunkId = input.sipTrunkId ?? current?.sipTrunkId;
    if (!sipTrunkId) throw badField('sipTrunkId', 'is required');
    if (input.sipTrunkId !== undefined && !(await findTrunk(sql, organisationId, sipTrunkId)))
      throw badField('sipTrunkId', 'is not a SIP trunk of the organisation');
    const type = input.type ?? current?.type;
    if (!type) throw badField('type', 'is required');
    const phoneNumber = input.phoneNumber ?? current?.phoneNumber;
    if (!phoneNumber) throw badField('phoneNumber', 'is required');
    let providerId = current?.providerId;
    if (input.providerId !== undefined || !providerId) {
      const provider = await findActiveProvider(sql, input.providerId ?? DEFAULT_PROVIDER);
      if (!provider) throw badField('providerId', 'is not an active SIP provider (GET /sip-config/providers)');
      providerId = provider.id;
    }
    const agentId = input.agentId === undefined ? (current?.agentId ?? null) : input.agentId;
    if (input.agentId) {
      const agent = await findAgent(sql, organisationId, input.agentId);
      if (!agent) throw badField('agentId', 'is not an agent of the organisation');
      if (agent.agent_type !== 'VOICE') throw badField('agentId', 'must be a VOICE agent: SIP calls are phone calls');
    }
    const money = (field: keyof ConfigurationInput & `customer${string}`, stored: number | undefined) => {
      const value = input[field];
      if (value === undefined) return stored ?? 0;
      const e4 = minorE4OfMajor(value);
      if (e4 === undefined) throw badField(`${field}`, 'has more than 6 decimal places');
      return e4;
    };
    const currentE4 = (value: number | undefined) => (value === undefined ? undefined : minorE4OfMajor(value));
    const maxConcurrentCalls =
      input.maxConcurrentCalls ?? current?.maxConcurrentCalls ?? CONFIGURATION_DEFAULTS.maxConcurrentCalls;
    const maxQueueSize = input.maxQueueSize ?? current?.maxQueueSize ?? CONFIGURATION_DEFAULTS.maxQueueSize;
    if (type === 'OUTBOUND' && input.maxQueueSize !== undefined && input.maxQueueSize > 0)
      throw badField('maxQueueSize', 'applies to INBOUND configurations only: outbound calls are not queued');
    return {
      sipTrunkId,
      type,
      providerId,
      agentId,
      phoneNumber,
      maxConcurrentCalls,
      maxQueueSize,
      callTimeoutMs: input.callTimeoutMs ?? current?.callTimeoutMs ?? CONFIGURATION_DEFAULTS.callTimeoutMs,
      callingScope: input.callingScope ?? current?.callingScope ?? CONFIGURATION_DEFAULTS.callingScope,
      allowedCountries: input.allowedCountries ?? current?.allowedCountries ?? [],
      sipReferEnabled: input.sipReferEnabled ?? current?.sipReferEnabled ?? false,
      customerRentalPerMonthMinorE4: money('customerRentalPerMonth', currentE4(current?.customerRentalPerMonth)),
      customerInboundSurchargePerMinMinorE4: money(
        'customerInboundSurchargePerMin',
        currentE4(current?.customerInboundSurchargePerMin),
      ),
      customerOutboundSurchargePerMinMinorE4: money(
        'customerOutboundSurchargePerMin',
        currentE4(current?.customerOutboundSurchargePerMin),
      ),
      isActive: input.isActive ?? current?.isActive ?? true,
    };
  }
}

/** An IPv4/IPv6 address, or a CIDR block of one with a prefix length in range. */
export function isSourceAddress(value: string): boolean {
  const [address, prefix, ...rest] = value.split('/');
  if (rest.length || !address) return false;
  const family = isIP(address);
  if (!family) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/** A second active INBOUND configuration of one number is a 409: inbound matching must never be ambiguous. */
async function conflictIfTaken(write: () => Promise<void>, phoneNumber: string): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (isUniqueViolation(error))
      throw new ApiError('conflict', `${phoneNumber} is already answered by another active INBOUND SIP configuration`, {
        cause: error,
      });
    throw error;
  }
}
