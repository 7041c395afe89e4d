/**
 * SIP providers, trunks and configurations as stored (migration 013_sip.sql) and as the API shows them (spec document
 * 1 "SIP configuration"). What the API never shows: a trunk's password (only whether one is set) and a
 * configuration's internal carrier costs.
 */
import type { SipTrunkRegistrationRow } from './sip-registration-repository.ts';
import { majorOfMinorE4 } from './sip-money.ts';

export const SIP_CONFIGURATION_TYPES = ['INBOUND', 'OUTBOUND'] as const;
export type SipConfigurationType = (typeof SIP_CONFIGURATION_TYPES)[number];
export const SIP_TRANSPORTS = ['udp', 'tcp'] as const;
export type SipTransportName = (typeof SIP_TRANSPORTS)[number];

export interface SipProviderRow {
  id: string;
  name: string;
  display_name: string;
  is_system: boolean;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
}

export interface SipProviderRecord {
  id: string;
  name: string;
  displayName: string;
  isSystem: boolean;
  isActive: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface SipTrunkRow {
  id: string;
  organisation_id: string;
  name: string;
  host: string;
  port: number;
  transport: SipTransportName;
  username: string | null;
  password_secret: string | null;
  source_addresses: string[];
  register: boolean;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
}

/** A trunk as returned: the password only as `hasPassword`. */
export interface SipTrunkRecord {
  id: string;
  organisationId: string;
  name: string;
  host: string;
  port: number;
  transport: SipTransportName;
  username: string | null;
  hasPassword: boolean;
  sourceAddresses: string[];
  register: boolean;
  /** Each gateway's registration with the trunk, as last reported (stale reports left out). */
  registrations: SipTrunkRegistrationRecord[];
  isActive: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export interface SipTrunkRegistrationRecord {
  gatewayId: string;
  state: 'registering' | 'registered' | 'failing';
  sipStatus: number | null;
  reason: string | null;
  expiresAt: Date | null;
  updatedAt: Date;
}

export interface SipConfigurationRow {
  id: string;
  organisation_id: string;
  sip_trunk_id: string;
  type: SipConfigurationType;
  provider_id: string;
  agent_id: string | null;
  phone_number: string;
  max_concurrent_calls: number;
  max_queue_size: number;
  call_timeout_ms: number;
  calling_scope: string;
  allowed_countries: string[];
  sip_refer_enabled: boolean;
  customer_rental_per_month_minor_e4: string | number;
  customer_inbound_surcharge_per_min_minor_e4: string | number;
  customer_outbound_surcharge_per_min_minor_e4: string | number;
  carrier_rental_per_month_minor_e4: string | number | null;
  carrier_cost_per_min_minor_e4: string | number | null;
  is_active: boolean;
  created_at: Date;
  updated_at: Date;
}

/** A configuration row with its provider's columns joined (prefixed `provider_`). */
export type SipConfigurationJoinedRow = SipConfigurationRow & {
  provider_name: string;
  provider_display_name: string;
  provider_is_system: boolean;
  provider_is_active: boolean;
  provider_created_at: Date;
  provider_updated_at: Date;
};

/** Spec document 1 "SIP configuration", every field; internal carrier costs left out. */
export interface SipConfigurationRecord {
  id: string;
  organisationId: string;
  sipTrunkId: string;
  type: SipConfigurationType;
  providerId: string;
  provider: SipProviderRecord;
  agentId: string | null;
  phoneNumber: string;
  maxConcurrentCalls: number;
  maxQueueSize: number;
  callTimeoutMs: number;
  callingScope: string;
  allowedCountries: string[];
  sipReferEnabled: boolean;
  customerRentalPerMonth: number;
  customerInboundSurchargePerMin: number;
  customerOutboundSurchargePerMin: number;
  isActive: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export function sipProviderRecord(row: SipProviderRow): SipProviderRecord {
  return {
    id: row.id,
    name: row.name,
    displayName: row.display_name,
    isSystem: row.is_system,
    isActive: row.is_active,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function sipTrunkRecord(row: SipTrunkRow, registrations: SipTrunkRegistrationRow[] = []): SipTrunkRecord {
  return {
    id: row.id,
    organisationId: row.organisation_id,
    name: row.name,
    host: row.host,
    port: row.port,
    transport: row.transport,
    username: row.username,
    hasPassword: row.password_secret !== null,
    sourceAddresses: row.source_addresses,
    register: row.register,
    registrations: registrations
      .filter((registration) => registration.trunk_id === row.id)
      .map((registration) => ({
        gatewayId: registration.gateway_id,
        state: registration.state,
        sipStatus: registration.sip_status,
        reason: registration.reason,
        expiresAt: registration.expires_at,
        updatedAt: registration.reported_at,
      })),
    isActive: row.is_active,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function sipConfigurationRecord(row: SipConfigurationJoinedRow): SipConfigurationRecord {
  return {
    id: row.id,
    organisationId: row.organisation_id,
    sipTrunkId: row.sip_trunk_id,
    type: row.type,
    providerId: row.provider_id,
    provider: {
      id: row.provider_id,
      name: row.provider_name,
      displayName: row.provider_display_name,
      isSystem: row.provider_is_system,
      isActive: row.provider_is_active,
      createdAt: row.provider_created_at,
      updatedAt: row.provider_updated_at,
    },
    agentId: row.agent_id,
    phoneNumber: row.phone_number,
    maxConcurrentCalls: row.max_concurrent_calls,
    maxQueueSize: row.max_queue_size,
    callTimeoutMs: row.call_timeout_ms,
    callingScope: row.calling_scope,
    allowedCountries: row.allowed_countries,
    sipReferEnabled: row.sip_refer_enabled,
    customerRentalPerMonth: majorOfMinorE4(row.customer_rental_per_month_minor_e4),
    customerInboundSurchargePerMin: majorOfMinorE4(row.customer_inbound_surcharge_per_min_minor_e4),
    customerOutboundSurchargePerMin: majorOfMinorE4(row.customer_outbound_surcharge_per_min_minor_e4),
    isActive: row.is_active,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
