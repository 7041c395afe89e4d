/**
 * SQL of trunk registrations (migration 020_sip_registrations.sql; docs/architecture.md §12): which trunks the
 * gateways register with, and the state each gateway last reported.
 */
import type { Queryable } from '../db/database.ts';
import type { SipTrunkRow } from './records.ts';

/** A gateway that went away stops being shown: a registered row once its grant ran out, others after this. */
export const STALE_REGISTRATION_REPORT = '10 minutes';

export interface SipTrunkRegistrationRow {
  trunk_id: string;
  gateway_id: string;
  state: 'registering' | 'registered' | 'failing';
  sip_status: number | null;
  reason: string | null;
  expires_at: Date | null;
  reported_at: Date;
}

/** Active trunks that ask for registration and have a user name (the address of record's user part). */
export async function trunksToRegister(sql: Queryable): Promise<SipTrunkRow[]> {
  return sql<SipTrunkRow[]>`select * from sip_trunks
    where register and is_active and username is not null order by created_at, id`;
}

export interface RegistrationReport {
  trunkId: string;
  organisationId: string;
  gatewayId: string;
  state: 'registering' | 'registered' | 'failing';
  sipStatus: number | null;
  reason: string | null;
  expiresAt: Date | null;
  reportedAt: Date;
}

/** Keeps the report unless a newer one of the same gateway is stored; a trunk not of that organisation is ignored. */
export async function upsertRegistration(sql: Queryable, report: RegistrationReport): Promise<void> {
  await sql`insert into sip_trunk_registrations
      (trunk_id, gateway_id, state, sip_status, reason, expires_at, reported_at)
    select id, ${report.gatewayId}, ${report.state}, ${report.sipStatus}, ${report.reason}, ${report.expiresAt},
           ${report.reportedAt}
    from sip_trunks where id = ${report.trunkId} and organisation_id = ${report.organisationId}
    on conflict (trunk_id, gateway_id) do update set
      state = excluded.state, sip_status = excluded.sip_status, reason = excluded.reason,
      expires_at = excluded.expires_at, reported_at = excluded.reported_at
    where sip_trunk_registrations.reported_at <= excluded.reported_at`;
}

/** The gateway unregistered: its row goes, unless a newer report is stored. */
export async function deleteRegistration(
  sql: Queryable,
  trunkId: string,
  gatewayId: string,
  reportedAt: Date,
): Promise<void> {
  await sql`delete from sip_trunk_registrations
    where trunk_id = ${trunkId} and gateway_id = ${gatewayId} and reported_at <= ${reportedAt}`;
}

/** The current (not stale) registrations of these trunks, oldest gateway report first. */
export async function registrationsOf(sql: Queryable, trunkIds: string[]): Promise<SipTrunkRegistrationRow[]> {
  if (trunkIds.length === 0) return [];
  return sql<SipTrunkRegistrationRow[]>`select * from sip_trunk_registrations
    where trunk_id = any(${trunkIds}::text[])
      and coalesce(expires_at, reported_at + ${STALE_REGISTRATION_REPORT}::interval) > now()
    order by reported_at, gateway_id`;
}
