import { randomBytes } from 'node:crypto';
import type { Principal } from '../auth/principal.ts';
import type { Role } from '../auth/scopes.ts';
import type { Sql } from '../db/database.ts';
import { isUniqueViolation } from '../db/errors.ts';
import { newId } from '../db/ids.ts';
import { ApiError, notFound } from '../errors.ts';
import type { MemberRecord } from './records.ts';
import type { OrganisationCache } from './organisation-cache.ts';
import {
  findUserByEmail,
  insertMember,
  insertUser,
  loadOrganisation,
  organisationName,
  presentOrganisation,
} from './repository.ts';
import { invitationMail } from '../integrations/email/invitation-mail.ts';
import { enqueueMail } from '../integrations/email/outbox-repository.ts';
import { assertMayGrant, DEFAULT_MEMBER_ROLE } from './member-service.ts';
import {
  cancelPendingInvitation,
  findInvitation,
  findInvitationByToken,
  findReopenable,
  insertInvitation,
  invitationRecord,
  listInvitations,
  markInvitationAccepted,
  reopenInvitation,
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
        const invitation = {
          organisationId: principal.organisationId,
          email,
          name: body.name,
          role,
          invitedById: principal.userId,
          token,
          expiresAt,
        };
        if (previous) await reopenInvitation(tx, previous.id, invitation);
        else await insertInvitation(tx, invitationId, invitation);
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
    const cancelled = await cancelPendingInvitation(this.#sql, principal.organisationId, id);
    const row = await findInvitation(this.#sql, principal.organisationId, id);
    if (!row) throw notFound('Invitation');
    if (!cancelled) throw new ApiError('invalid_state', `The invitation is ${row.status}, not PENDING`);
    return invitationRecord(row);
  }

  async preview(token: string) {
    const row = await findInvitationByToken(this.#sql, token);
    if (!row) throw notFound('Invitation');
    const record = invitationRecord(row);
    return {
      organisationName: (await organisationName(this.#sql, row.organisation_id)) ?? '',
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
      // The invitation proved the address, so a user made here starts verified.
      let userId = (await findUserByEmail(tx, row.email))?.id;
      if (!userId) {
        userId = newId();
        await insertUser(tx, { id: userId, name: name ?? row.name, email: row.email, verified: true });
      }
      await insertMember(tx, { organisationId: row.organisation_id, userId, role: row.role });
      await markInvitationAccepted(tx, row.id);
      return { organisationId: row.organisation_id, userId };
    });
    await this.#options.organisations.changed(organisationId);
    const member = (await this.#options.organisations.get(organisationId))?.members?.find((m) => m.userId === userId);
    if (!member) throw notFound('Member');
    return member;
  }
}
