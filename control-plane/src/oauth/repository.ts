/** SQL of the OAuth authorization server: clients, authorizations and codes, grants, refresh tokens, sessions. */
import type { Queryable } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import type { Role } from '../auth/scopes.ts';

export async function insertClient(
  sql: Queryable,
  client: { clientId: string; clientName: string; redirectUris: string[]; clientUri: string | null },
): Promise<Date> {
  const [row] = await sql<{ created_at: Date }[]>`
    insert into oauth_clients (id, client_name, redirect_uris, client_uri)
    values (${client.clientId}, ${client.clientName}, ${client.redirectUris}, ${client.clientUri})
    returning created_at`;
  return row!.created_at;
}

export async function findClient(
  sql: Queryable,
  clientId: string,
): Promise<{ clientId: string; clientName: string; redirectUris: string[]; clientUri: string | null } | undefined> {
  const [row] = await sql<{ id: string; client_name: string; redirect_uris: string[]; client_uri: string | null }[]>`
    select id, client_name, redirect_uris, client_uri from oauth_clients where id = ${clientId}`;
  return (
    row && { clientId: row.id, clientName: row.client_name, redirectUris: row.redirect_uris, clientUri: row.client_uri }
  );
}

export interface AuthorizationRow {
  id: string;
  client_id: string;
  client_name: string;
  redirect_uri: string;
  code_challenge: string;
  state: string | null;
  scopes: string[];
  resource: string;
  user_id: string | null;
  organisation_id: string | null;
  code_expires_at: Date | null;
  code_used_at: Date | null;
  expires_at: Date;
}

export async function insertAuthorization(
  sql: Queryable,
  input: {
    clientId: string;
    clientName: string;
    redirectUri: string;
    codeChallenge: string;
    state: string | null;
    scopes: readonly string[];
    resource: string;
    lifetimeMs: number;
  },
): Promise<string> {
  const id = newId();
  // Abandoned requests are cleared as new ones arrive; those that produced a grant are kept (the grant names them).
  await sql`delete from oauth_authorizations where expires_at < now() - interval '1 day'
              and not exists (select 1 from oauth_grants g where g.authorization_id = oauth_authorizations.id)`;
  await sql`insert into oauth_authorizations
      (id, client_id, client_name, redirect_uri, code_challenge, state, scopes, resource, expires_at)
    values (${id}, ${input.clientId}, ${input.clientName}, ${input.redirectUri}, ${input.codeChallenge},
            ${input.state}, ${[...input.scopes]}, ${input.resource},
            now() + ${input.lifetimeMs} * interval '1 millisecond')`;
  return id;
}

/** A pending authorization still open (not expired, no code issued yet). */
export async function findOpenAuthorization(sql: Queryable, id: string): Promise<AuthorizationRow | undefined> {
  const [row] = await sql<AuthorizationRow[]>`select * from oauth_authorizations
    where id = ${id} and expires_at > now() and code_hash is null`;
  return row;
}

export async function chooseOrganisation(sql: Queryable, id: string, organisationId: string): Promise<void> {
  await sql`update oauth_authorizations set organisation_id = ${organisationId} where id = ${id}`;
}

/** Approves an open authorization: binds the user and organisation and stores the code's hash. */
export async function issueCode(
  sql: Queryable,
  input: { id: string; userId: string; organisationId: string; codeHash: string; lifetimeMs: number },
): Promise<AuthorizationRow | undefined> {
  const [row] = await sql<AuthorizationRow[]>`update oauth_authorizations
       set user_id = ${input.userId}, organisation_id = ${input.organisationId}, code_hash = ${input.codeHash},
           code_expires_at = now() + ${input.lifetimeMs} * interval '1 millisecond'
     where id = ${input.id} and code_hash is null and expires_at > now() returning *`;
  return row;
}

/** Spends a code once; `firstUse` false when it had been spent before (or the code is unknown: then no row). */
export async function spendCode(
  sql: Queryable,
  codeHash: string,
): Promise<{ row: AuthorizationRow; firstUse: boolean; expired: boolean } | undefined> {
  const [spent] = await sql<(AuthorizationRow & { expired: boolean })[]>`update oauth_authorizations
       set code_used_at = now() where code_hash = ${codeHash} and code_used_at is null
     returning *, code_expires_at <= now() as expired`;
  if (spent) return { row: spent, firstUse: true, expired: spent.expired };
  const [again] = await sql<AuthorizationRow[]>`select * from oauth_authorizations where code_hash = ${codeHash}`;
  return again && { row: again, firstUse: false, expired: true };
}

/** Marks a code spent whatever else happened to its exchange. */
export async function markCodeSpent(sql: Queryable, codeHash: string): Promise<void> {
  await sql`update oauth_authorizations set code_used_at = coalesce(code_used_at, now()) where code_hash = ${codeHash}`;
}

export interface GrantRow {
  id: string;
  organisation_id: string;
  user_id: string;
  client_id: string;
  client_name: string;
  scopes: string[];
  resource: string;
  key_id: string;
  created_at: Date;
  revoked_at: Date | null;
}

export async function insertGrant(
  sql: Queryable,
  grant: Omit<GrantRow, 'id' | 'created_at' | 'revoked_at'> & { authorizationId: string },
): Promise<string> {
  const id = newId();
  await sql`insert into oauth_grants
      (id, organisation_id, user_id, client_id, client_name, scopes, resource, key_id, authorization_id)
    values (${id}, ${grant.organisation_id}, ${grant.user_id}, ${grant.client_id}, ${grant.client_name},
            ${grant.scopes}, ${grant.resource}, ${grant.key_id}, ${grant.authorizationId})`;
  return id;
}

export async function grantOfAuthorization(sql: Queryable, authorizationId: string): Promise<GrantRow | undefined> {
  const [row] = await sql<GrantRow[]>`select * from oauth_grants where authorization_id = ${authorizationId}`;
  return row;
}

/** The grant whose current key this is. */
export async function grantOfKey(sql: Queryable, keyId: string): Promise<GrantRow | undefined> {
  const [row] = await sql<GrantRow[]>`select * from oauth_grants where key_id = ${keyId}`;
  return row;
}

export async function findGrant(sql: Queryable, grantId: string): Promise<GrantRow | undefined> {
  const [row] = await sql<GrantRow[]>`select * from oauth_grants where id = ${grantId}`;
  return row;
}

/** Marks a grant revoked (once) and revokes its key; the key's id when something changed. */
export async function revokeGrant(sql: Queryable, grantId: string): Promise<string | undefined> {
  const [grant] = await sql<{ key_id: string }[]>`update oauth_grants set revoked_at = now()
    where id = ${grantId} and revoked_at is null returning key_id`;
  if (!grant) return undefined;
  await sql`update api_keys set revoked_at = coalesce(revoked_at, now()) where id = ${grant.key_id}`;
  await sql`update oauth_refresh_tokens set used_at = coalesce(used_at, now()) where grant_id = ${grantId}`;
  return grant.key_id;
}

export async function replaceGrantKey(sql: Queryable, grantId: string, keyId: string): Promise<void> {
  await sql`update oauth_grants set key_id = ${keyId} where id = ${grantId}`;
}

export async function insertRefreshToken(sql: Queryable, tokenHash: string, grantId: string): Promise<void> {
  await sql`insert into oauth_refresh_tokens (token_hash, grant_id) values (${tokenHash}, ${grantId})`;
}

/** Spends a refresh token once, locking its grant; `firstUse` false when it was spent before. */
export async function spendRefreshToken(
  sql: Queryable,
  tokenHash: string,
): Promise<{ grant: GrantRow; firstUse: boolean } | undefined> {
  const [spent] = await sql<{ grant_id: string }[]>`update oauth_refresh_tokens set used_at = now()
    where token_hash = ${tokenHash} and used_at is null returning grant_id`;
  const grantId =
    spent?.grant_id ??
    (await sql<{ grant_id: string }[]>`select grant_id from oauth_refresh_tokens where token_hash = ${tokenHash}`)[0]
      ?.grant_id;
  if (!grantId) return undefined;
  const [grant] = await sql<GrantRow[]>`select * from oauth_grants where id = ${grantId} for update`;
  return grant && { grant, firstUse: Boolean(spent) };
}

export interface ConnectionRow extends GrantRow {
  organisation_name: string;
  last_used_at: Date | null;
}

/** A user's connected hosts still active, newest first. */
export async function activeGrantsOfUser(sql: Queryable, userId: string): Promise<ConnectionRow[]> {
  return sql<ConnectionRow[]>`select g.*, o.name as organisation_name, k.last_used_at
      from oauth_grants g join organisations o on o.id = g.organisation_id join api_keys k on k.id = g.key_id
     where g.user_id = ${userId} and g.revoked_at is null order by g.created_at desc, g.id`;
}

export interface LoginUserRow {
  id: string;
  name: string;
  email: string;
  password_hash: string | null;
}

/** An active user by e-mail, with the password hash. */
export async function findLoginUser(sql: Queryable, email: string): Promise<LoginUserRow | undefined> {
  const [row] = await sql<LoginUserRow[]>`select id, name, email, password_hash from users
    where lower(email) = lower(${email}) and deleted_at is null and is_active`;
  return row;
}

export async function setPasswordHash(sql: Queryable, userId: string, hash: string): Promise<void> {
  await sql`update users set password_hash = ${hash}, updated_at = now() where id = ${userId}`;
}

export async function recordLogin(sql: Queryable, userId: string): Promise<void> {
  await sql`update users set last_login = now() where id = ${userId}`;
}

export interface MembershipRow {
  organisation_id: string;
  name: string;
  role: Role;
}

/** The active organisations a user owns or belongs to, with the role there (the owner is OWNER). */
export async function membershipsOf(sql: Queryable, userId: string): Promise<MembershipRow[]> {
  return sql<MembershipRow[]>`select o.id as organisation_id, o.name,
        case when o.owner_id = ${userId} then 'OWNER' else m.role end as role
      from organisations o left join members m on m.organisation_id = o.id and m.user_id = ${userId}
     where o.is_active and o.deleted_at is null and (o.owner_id = ${userId} or m.user_id is not null)
     order by o.created_at, o.id`;
}

export async function insertSession(sql: Queryable, tokenHash: string, userId: string, lifetimeMs: number) {
  await sql`insert into browser_sessions (token_hash, user_id, expires_at)
    values (${tokenHash}, ${userId}, now() + ${lifetimeMs} * interval '1 millisecond')`;
}

/** The active user of a live session. */
export async function sessionUser(sql: Queryable, tokenHash: string): Promise<LoginUserRow | undefined> {
  const [row] = await sql<LoginUserRow[]>`select u.id, u.name, u.email, u.password_hash
      from browser_sessions s join users u on u.id = s.user_id and u.is_active and u.deleted_at is null
     where s.token_hash = ${tokenHash} and s.expires_at > now()`;
  return row;
}

export async function deleteSession(sql: Queryable, tokenHash: string): Promise<void> {
  await sql`delete from browser_sessions where token_hash = ${tokenHash} or expires_at < now()`;
}

/** The id of the key with this prefix and hash, whatever its state. */
export async function keyIdOf(sql: Queryable, prefix: string, hash: string): Promise<string | undefined> {
  const [row] = await sql<
    { id: string }[]
  >`select id from api_keys where key_prefix = ${prefix} and key_hash = ${hash}`;
  return row?.id;
}

/** The grant a refresh token (current or spent) belongs to. */
export async function grantOfRefreshToken(sql: Queryable, tokenHash: string): Promise<GrantRow | undefined> {
  const [row] = await sql<GrantRow[]>`select g.* from oauth_refresh_tokens r join oauth_grants g on g.id = r.grant_id
    where r.token_hash = ${tokenHash}`;
  return row;
}
