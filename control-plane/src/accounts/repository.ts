/** Reads of organisations with their people, shared by the organisation, member and invitation routes. */
import type { Queryable } from '../db/database.ts';
import {
  memberRecords,
  organisationRecord,
  userRecord,
  type MemberRow,
  type OrganisationRecord,
  type OrganisationRow,
  type UserRow,
} from './records.ts';

export interface OrganisationWithPeople {
  organisation: OrganisationRow;
  owner: UserRow;
  memberRows: (MemberRow & { user: UserRow })[];
}

/**
 * The organisation (not deleted), its owner and its members. The three reads are sent together so they share one
 * round trip on a pipelined connection.
 */
export async function loadOrganisation(
  sql: Queryable,
  organisationId: string,
): Promise<OrganisationWithPeople | undefined> {
  const [organisations, members, users] = await Promise.all([
    sql<OrganisationRow[]>`select * from organisations where id = ${organisationId} and deleted_at is null`,
    sql<MemberRow[]>`select id, organisation_id, user_id, role, joined_at from members
                      where organisation_id = ${organisationId} order by joined_at, id`,
    // `= any(array(… union …))` keeps to the primary key; `in (…) or in (…)` would scan every user.
    sql<UserRow[]>`select u.* from users u
                    where u.id = any(array(select owner_id from organisations where id = ${organisationId}
                                           union select user_id from members where organisation_id = ${organisationId}))`,
  ]);
  const organisation = organisations[0];
  if (!organisation) return undefined;
  const usersById = new Map(users.map((u) => [u.id, u]));
  const owner = usersById.get(organisation.owner_id);
  if (!owner) return undefined;
  const memberRows = members.flatMap((m) => {
    const user = usersById.get(m.user_id);
    return user ? [{ ...m, user }] : [];
  });
  return { organisation, owner, memberRows };
}

/** The organisation record with `owner` and `members` attached, as GET /organisations shows it. */
export function presentOrganisation(loaded: OrganisationWithPeople): OrganisationRecord {
  return {
    ...organisationRecord(loaded.organisation),
    owner: userRecord(loaded.owner),
    members: memberRecords(loaded.organisation, loaded.owner, loaded.memberRows),
  };
}

export async function findUser(sql: Queryable, userId: string): Promise<UserRow | undefined> {
  const [user] = await sql<UserRow[]>`select * from users where id = ${userId} and deleted_at is null`;
  return user;
}

export async function findUserByEmail(sql: Queryable, email: string): Promise<UserRow | undefined> {
  const [user] = await sql<UserRow[]>`select * from users where lower(email) = lower(${email}) and deleted_at is null`;
  return user;
}

/** Whether the user is the organisation's owner or one of its members (and not deleted). */
export async function isPersonOf(sql: Queryable, organisationId: string, userId: string): Promise<boolean> {
  const rows = await sql`select 1 from users u where u.id = ${userId} and u.deleted_at is null
    and (exists (select 1 from organisations o where o.id = ${organisationId} and o.owner_id = u.id)
         or exists (select 1 from members m where m.organisation_id = ${organisationId} and m.user_id = u.id))`;
  return rows.length > 0;
}
