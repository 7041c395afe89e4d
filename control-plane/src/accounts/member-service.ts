import type { Principal } from '../auth/principal.ts';
import type { KeyStore } from '../auth/key-store.ts';
import { roleAtMost, type Role } from '../auth/scopes.ts';
import type { Sql } from '../db/database.ts';
import { ApiError, badField, notFound } from '../errors.ts';
import type { MemberRecord } from './records.ts';
import type { OrganisationCache } from './organisation-cache.ts';
import { deleteMember, findUser, insertMember, loadOrganisation, updateMemberRole } from './repository.ts';

/** Role a member gets when none is named: the least privilege. */
export const DEFAULT_MEMBER_ROLE: Role = 'VIEWER';

export class MemberService {
  readonly #sql: Sql;
  readonly #keys: KeyStore;
  readonly #organisations: OrganisationCache;

  constructor(sql: Sql, keys: KeyStore, organisations: OrganisationCache) {
    this.#sql = sql;
    this.#keys = keys;
    this.#organisations = organisations;
  }

  async list(principal: Principal): Promise<MemberRecord[]> {
    const organisation = await this.#organisations.get(principal.organisationId);
    if (!organisation) throw notFound('Organisation');
    return organisation.members ?? [];
  }

  async add(principal: Principal, userId: string, role: Role = DEFAULT_MEMBER_ROLE): Promise<MemberRecord> {
    assertMayGrant(principal, role);
    const user = await findUser(this.#sql, userId);
    if (!user) throw badField('userId', 'is not a known user');
    const loaded = await loadOrganisation(this.#sql, principal.organisationId);
    if (!loaded) throw notFound('Organisation');
    if (loaded.owner.id === userId || loaded.memberRows.some((m) => m.user_id === userId)) {
      throw new ApiError('invalid_state', 'The user is already a member of this organisation');
    }
    const inserted = await insertMember(this.#sql, { organisationId: principal.organisationId, userId, role });
    if (!inserted) throw new ApiError('invalid_state', 'The user is already a member of this organisation');
    await this.#organisations.changed(principal.organisationId);
    return this.#member(principal, userId);
  }

  async changeRole(principal: Principal, userId: string, role: Role): Promise<MemberRecord> {
    assertMayGrant(principal, role);
    const loaded = await loadOrganisation(this.#sql, principal.organisationId);
    if (!loaded) throw notFound('Organisation');
    if (loaded.owner.id === userId) throw new ApiError('invalid_state', "The owner's role cannot be changed");
    assertMayManage(principal, loaded.memberRows.find((m) => m.user_id === userId)?.role);
    if (!(await updateMemberRole(this.#sql, principal.organisationId, userId, role))) throw notFound('Member');
    // Cached principals carry the role; drop them so the new role applies on the next request everywhere.
    await this.#keys.revoke({ userId, organisationId: principal.organisationId });
    await this.#organisations.changed(principal.organisationId);
    return this.#member(principal, userId);
  }

  async remove(principal: Principal, userId: string): Promise<void> {
    const loaded = await loadOrganisation(this.#sql, principal.organisationId);
    if (!loaded) throw notFound('Organisation');
    if (loaded.owner.id === userId) throw new ApiError('invalid_state', 'The owner cannot be removed');
    assertMayManage(principal, loaded.memberRows.find((m) => m.user_id === userId)?.role);
    if (!(await deleteMember(this.#sql, principal.organisationId, userId))) throw notFound('Member');
    await this.#keys.revoke({ userId, organisationId: principal.organisationId });
    await this.#organisations.changed(principal.organisationId);
  }

  async membershipsOf(principal: Principal, userId: string): Promise<MemberRecord[]> {
    if (userId !== principal.userId) throw new ApiError('forbidden', 'userId must be the id of the key owner');
    return [await this.#member(principal, userId)];
  }

  async #member(principal: Principal, userId: string): Promise<MemberRecord> {
    const member = (await this.list(principal)).find((m) => m.userId === userId);
    if (!member) throw notFound('Member');
    return member;
  }
}

/** Nobody hands out a role above their own: only an OWNER grants OWNER, an ADMIN at most ADMIN. */
export function assertMayGrant(principal: Principal, role: Role): void {
  if (!roleAtMost(role, principal.role)) {
    throw new ApiError('role_required', `A ${principal.role} cannot grant the ${role} role`);
  }
}

/** Nobody changes or removes a member whose role is above their own (an ADMIN cannot demote an OWNER). */
function assertMayManage(principal: Principal, targetRole: Role | undefined): void {
  if (targetRole && !roleAtMost(targetRole, principal.role)) {
    throw new ApiError('role_required', `A ${principal.role} cannot change or remove a member who is ${targetRole}`);
  }
}
