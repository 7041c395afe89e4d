/** The invitations table: the only SQL for it (docs/architecture.md §1). */
import type { Queryable } from '../db/database.ts';
import type { Role } from '../auth/scopes.ts';

export interface InvitationRow {
  id: string;
  organisation_id: string;
  email: string;
  name: string;
  role: Role;
  invited_by_id: string;
  status: 'PENDING' | 'ACCEPTED' | 'CANCELLED';
  token: string;
  expires_at: Date;
  accepted_at: Date | null;
  created_at: Date;
  updated_at: Date;
  inviter_name: string;
  inviter_email: string;
}

export interface InvitationRecord {
  id: string;
  organisationId: string;
  email: string;
  name: string;
  role: Role;
  invitedById: string;
  status: 'PENDING' | 'ACCEPTED' | 'CANCELLED' | 'EXPIRED';
  token: string;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
  invitedBy: { id: string; name: string; email: string };
}

const SELECT = `select i.*, u.name as inviter_name, u.email as inviter_email
                  from invitations i join users u on u.id = i.invited_by_id`;

export async function listInvitations(sql: Queryable, organisationId: string): Promise<InvitationRow[]> {
  return sql.unsafe<InvitationRow[]>(`${SELECT} where i.organisation_id = $1 order by i.created_at desc, i.id desc`, [
    organisationId,
  ]);
}

export async function findInvitation(
  sql: Queryable,
  organisationId: string,
  id: string,
): Promise<InvitationRow | undefined> {
  const [row] = await sql.unsafe<InvitationRow[]>(`${SELECT} where i.organisation_id = $1 and i.id = $2`, [
    organisationId,
    id,
  ]);
  return row;
}

export async function findInvitationByToken(
  sql: Queryable,
  token: string,
  lock = false,
): Promise<InvitationRow | undefined> {
  const [row] = await sql.unsafe<InvitationRow[]>(`${SELECT} where i.token = $1${lock ? ' for update of i' : ''}`, [
    token,
  ]);
  return row;
}

/** The invitation for this address that inviting again would re-open: the newest not yet accepted. */
export async function findReopenable(
  sql: Queryable,
  organisationId: string,
  email: string,
): Promise<InvitationRow | undefined> {
  const [row] = await sql.unsafe<InvitationRow[]>(
    `${SELECT} where i.organisation_id = $1 and lower(i.email) = lower($2) and i.status <> 'ACCEPTED'
      order by (i.status = 'PENDING') desc, i.created_at desc limit 1 for update of i`,
    [organisationId, email],
  );
  return row;
}

/** A PENDING invitation past its expiry reads as EXPIRED. */
export function invitationRecord(row: InvitationRow, now = new Date()): InvitationRecord {
  const status = row.status === 'PENDING' && row.expires_at <= now ? 'EXPIRED' : row.status;
  return {
    id: row.id,
    organisationId: row.organisation_id,
    email: row.email,
    name: row.name,
    role: row.role,
    invitedById: row.invited_by_id,
    status,
    token: row.token,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    invitedBy: { id: row.invited_by_id, name: row.inviter_name, email: row.inviter_email },
  };
}

export interface InvitationWrite {
  organisationId: string;
  email: string;
  name: string;
  role: Role;
  invitedById: string;
  token: string;
  expiresAt: Date;
}

export async function insertInvitation(sql: Queryable, id: string, invitation: InvitationWrite): Promise<void> {
  await sql`insert into invitations (id, organisation_id, email, name, role, invited_by_id, status, token, expires_at)
            values (${id}, ${invitation.organisationId}, ${invitation.email}, ${invitation.name}, ${invitation.role},
                    ${invitation.invitedById}, 'PENDING', ${invitation.token}, ${invitation.expiresAt})`;
}

/** Inviting an address again re-opens its earlier invitation with a new token and expiry instead of adding a row. */
export async function reopenInvitation(sql: Queryable, id: string, invitation: InvitationWrite): Promise<void> {
  await sql`update invitations set status = 'PENDING', token = ${invitation.token}, expires_at = ${invitation.expiresAt},
            name = ${invitation.name}, role = ${invitation.role}, invited_by_id = ${invitation.invitedById},
            email = ${invitation.email}, updated_at = now()
            where id = ${id}`;
}

/** False when the invitation is not PENDING (or not this organisation's). */
export async function cancelPendingInvitation(sql: Queryable, organisationId: string, id: string): Promise<boolean> {
  const updated = await sql`update invitations set status = 'CANCELLED', updated_at = now()
    where id = ${id} and organisation_id = ${organisationId} and status = 'PENDING' returning id`;
  return updated.length > 0;
}

export async function markInvitationAccepted(sql: Queryable, id: string): Promise<void> {
  await sql`update invitations set status = 'ACCEPTED', accepted_at = now(), updated_at = now() where id = ${id}`;
}
