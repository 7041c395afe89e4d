/** The organisations, users and members tables: the only SQL for them (docs/architecture.md §1). */
import type { Role } from '../auth/scopes.ts';
import type { Queryable, Sql } from '../db/database.ts';
import { newId } from '../db/ids.ts';
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

/** A new user; `verified` marks an address proven by the invitation it arrived through. */
export async function insertUser(
  sql: Queryable,
  user: { id: string; name: string; email: string; verified: boolean },
): Promise<void> {
  if (user.verified) {
    await sql`insert into users (id, name, email, is_email_verified, email_verified_at)
              values (${user.id}, ${user.name}, ${user.email}, true, now())`;
  } else {
    await sql`insert into users (id, name, email, is_email_verified) values (${user.id}, ${user.name}, ${user.email}, false)`;
  }
}

export async function insertOrganisation(
  sql: Queryable,
  organisation: { id: string; name: string; ownerId: string; features: readonly string[] },
): Promise<void> {
  await sql`insert into organisations (id, name, owner_id, features)
            values (${organisation.id}, ${organisation.name}, ${organisation.ownerId}, ${[...organisation.features]})`;
}

export async function findOrganisationRow(
  sql: Queryable,
  organisationId: string,
): Promise<OrganisationRow | undefined> {
  const [row] = await sql<
    OrganisationRow[]
  >`select * from organisations where id = ${organisationId} and deleted_at is null`;
  return row;
}

export async function organisationName(sql: Queryable, organisationId: string): Promise<string | undefined> {
  const [row] = await sql<{ name: string }[]>`select name from organisations where id = ${organisationId}`;
  return row?.name;
}

/** Applies the changed columns; false when the organisation is gone. */
export async function updateOrganisation(
  sql: Sql,
  organisationId: string,
  changes: Record<string, unknown>,
): Promise<boolean> {
  const updated = await sql`update organisations set ${sql(changes)}, updated_at = now()
                             where id = ${organisationId} and deleted_at is null returning id`;
  return updated.length > 0;
}

/** Adds and removes feature flags in one statement; the flags as stored after, or undefined for no organisation. */
export async function changeFeatures(
  sql: Queryable,
  organisationId: string,
  enable: readonly string[],
  disable: readonly string[],
): Promise<string[] | undefined> {
  const [row] = await sql<{ features: string[] }[]>`
    update organisations
       set features = array(select distinct f from unnest(features || ${[...enable]}::text[]) f
                             where f <> all(${[...disable]}::text[]) order by f),
           updated_at = now()
     where id = ${organisationId} and deleted_at is null
    returning features`;
  return row?.features;
}

/** How many organisations exist at all (deleted ones too): the first start provisions only into an empty database. */
export async function countOrganisations(sql: Queryable): Promise<number> {
  const [row] = await sql<{ count: number }[]>`select count(*)::int as count from organisations`;
  return row?.count ?? 0;
}

/** Inserts the membership; false when the user already is a member. */
export async function insertMember(
  sql: Queryable,
  member: { organisationId: string; userId: string; role: Role },
): Promise<boolean> {
  const inserted = await sql`insert into members (id, organisation_id, user_id, role)
    values (${newId()}, ${member.organisationId}, ${member.userId}, ${member.role})
    on conflict (organisation_id, user_id) do nothing returning id`;
  return inserted.length > 0;
}

/** False when the user is not a member. */
export async function updateMemberRole(
  sql: Queryable,
  organisationId: string,
  userId: string,
  role: Role,
): Promise<boolean> {
  const updated = await sql`update members set role = ${role}
    where organisation_id = ${organisationId} and user_id = ${userId} returning id`;
  return updated.length > 0;
}

/** False when the user was not a member. */
export async function deleteMember(sql: Queryable, organisationId: string, userId: string): Promise<boolean> {
  const removed = await sql`delete from members
    where organisation_id = ${organisationId} and user_id = ${userId} returning id`;
  return removed.length > 0;
}
