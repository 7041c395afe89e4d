import { randomBytes } from 'node:crypto';
import type { Principal } from '../auth/principal.ts';
import type { Role } from '../auth/scopes.ts';
import type { Sql } from '../db/database.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { newId } from '../db/ids.ts';
import { ApiError, notFound } from '../errors.ts';
import type { MemberRecord } from './records.ts';
import type { OrganisationCache } from './organisation-cache.ts';
import { findUserByEmail, loadOrganisation, presentOrganisation } from './repository.ts';
import { invitationMail } from '../integrations/email/invitation-mail.ts';
import { enqueueMail } from '../integrations/email/outbox.ts';
import { assertMayGrant, DEFAULT_MEMBER_ROLE } from './member-service.ts';
import {
  findInvitation,
  findInvitationByToken,
  findReopenable,
  invitationRecord,
  listInvitations,
  type InvitationRecord,
} from './invitation-repository.ts';
import type { InviteBody } from './types.ts';

/** Spec document 3: an invitation is valid 7 days after creation or re-opening. */
export const INVITATION_VALIDITY_MS = 7 * 24 * 60 * 60 * 1000;

export interface InvitationServiceOptions {
  publicUrl: string;
  organisations: OrganisationCache;
  /** Called after an invitation mail was queued, so it goes out now rather than at the next poll. */
  onMailQueued: () => void;
}

export class InvitationService {
  readonly #sql: Sql;
  readonly #options: InvitationServiceOptions;

  constructor(sql: Sql, options: InvitationServiceOptions) {
    this.#sql = sql;
    this.#options = options;
  }

  async invite(principal: Principal, body: InviteBody): Promise<InvitationRecord> {
    const role: Role = body.role ?? DEFAULT_MEMBER_ROLE;
    assertMayGrant(principal, role);
    const email = body.email.trim();
    const id = await this.#sql
      .begin(async (tx) => {
        const loaded = await loadOrganisation(tx, principal.organisationId);
        if (!loaded) throw notFound('Organisation');
        const existingUser = await findUserByEmail(tx, email);
        const { owner, memberRows, organisation } = loaded;
        if (existingUser && (owner.id === existingUser.id || memberRows.some((m) => m.user_id === existingUser.id))) {
          throw new ApiError('invalid_state', 'email already belongs to a member of this organisation');
        }
        const token = randomBytes(32).toString('hex');
        const expiresAt = new Date(Date.now() + INVITATION_VALIDITY_MS);
        const previous = await findReopenable(tx, principal.organisationId, email);
        if (previous && previous.status === 'PENDING' && previous.expires_at > new Date()) {
          throw new ApiError('invalid_state', 'A pending invitation for this email already exists');
        }
        const invitationId = previous?.id ?? newId();
        if (previous) {
          await tx`update invitations set status = 'PENDING', token = ${token}, expires_at = ${expiresAt}, name = ${body.name},
                 role = ${role}, invited_by_id = ${principal.userId}, email = ${email}, updated_at = now()
                 where id = ${previous.id}`;
        } else {
          await tx`insert into invitations (id, organisation_id, email, name, role, invited_by_id, status, token, expires_at)
                 values (${invitationId}, ${principal.organisationId}, ${email}, ${body.name}, ${role}, ${principal.userId},
                         'PENDING', ${token}, ${expiresAt})`;
        }
        const inviter = presentOrganisation(loaded).members?.find((m) => m.userId === principal.userId)?.user;
        await enqueueMail(
          tx,
          principal.organisationId,
          invitationMail({
            to: email,
            inviteeName: body.name,
            inviterName: inviter?.name ?? 'A colleague',
            organisationName: organisation.name,
            role,
            acceptUrl: `${this.#options.publicUrl}/invite/${token}`,
            expiresAt,
          }),
        );
        return invitationId;
      })
      .catch((error: unknown) => {
        // Two invitations for one address sent at the same moment: the unique index on open invitations decides.
        if (isUniqueViolation(error))
          throw new ApiError('invalid_state', 'A pending invitation for this email already exists');
        throw error;
      });
    this.#options.onMailQueued();
    const row = await findInvitation(this.#sql, principal.organisationId, id);
    if (!row) throw notFound('Invitation');
    return invitationRecord(row);
  }

  async list(principal: Principal): Promise<InvitationRecord[]> {
    const now = new Date();
    return (await listInvitations(this.#sql, principal.organisationId)).map((row) => invitationRecord(row, now));
  }

  async cancel(principal: Principal, id: string): Promise<InvitationRecord> {
    const updated = await this.#sql`update invitations set status = 'CANCELLED', updated_at = now()
      where id = ${id} and organisation_id = ${principal.organisationId} and status = 'PENDING' returning id`;
    const row = await findInvitation(this.#sql, principal.organisationId, id);
    if (!row) throw notFound('Invitation');
    if (!updated.length) throw new ApiError('invalid_state', `The invitation is ${row.status}, not PENDING`);
    return invitationRecord(row);
  }

  async preview(token: string) {
    const row = await findInvitationByToken(this.#sql, token);
    if (!row) throw notFound('Invitation');
    const [org] = await this.#sql<{ name: string }[]>`select name from organisations where id = ${row.organisation_id}`;
    const record = invitationRecord(row);
    return {
      organisationName: org?.name ?? '',
      email: record.email,
      name: record.name,
      role: record.role,
      status: record.status,
      expiresAt: record.expiresAt,
      invitedBy: { name: row.inviter_name },
    };
  }

  /** Joins the invitee to the organisation, creating their user when the address has none. */
  async accept(token: string, name: string | undefined): Promise<MemberRecord> {
    const { organisationId, userId } = await this.#sql.begin(async (tx) => {
      const row = await findInvitationByToken(tx, token, true);
      if (!row) throw notFound('Invitation');
      const status = invitationRecord(row).status;
      if (status !== 'PENDING') throw new ApiError('invalid_state', `The invitation is ${status}`);
      let user = await findUserByEmail(tx, row.email);
      if (!user) {
        const id = newId();
        await tx`insert into users (id, name, email, is_email_verified, email_verified_at)
                 values (${id}, ${name ?? row.name}, ${row.email}, true, now())`;
        user = { id } as NonNullable<typeof user>;
      }
      await tx`insert into members (id, organisation_id, user_id, role)
               values (${newId()}, ${row.organisation_id}, ${user.id}, ${row.role})
               on conflict (organisation_id, user_id) do nothing`;
      await tx`update invitations set status = 'ACCEPTED', accepted_at = now(), updated_at = now() where id = ${row.id}`;
      return { organisationId: row.organisation_id, userId: user.id };
    });
    await this.#options.organisations.changed(organisationId);
    const member = (await this.#options.organisations.get(organisationId))?.members?.find((m) => m.userId === userId);
    if (!member) throw notFound('Member');
    return member;
  }
}
