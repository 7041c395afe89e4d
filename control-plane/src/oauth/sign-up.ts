/** Creating an account from the sign-up page: a user with a password and a personal organisation they own. */
import type { Sql } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import { findUserByEmail, insertMember, insertOrganisation, insertUser } from '../accounts/repository.ts';
import { hashPassword } from './password.ts';
import { setPasswordHash } from './repository.ts';

export type SignUpResult = { kind: 'created'; userId: string } | { kind: 'taken' };

export async function signUp(
  sql: Sql,
  input: { name: string; email: string; password: string; organisationName: string },
): Promise<SignUpResult> {
  const hash = await hashPassword(input.password);
  return createAccount(sql, input, hash).catch((error: { code?: string }) => {
    // Two sign-ups with one address at once: the unique index decides, and the second is told the address is taken.
    if (error.code === UNIQUE_VIOLATION) return { kind: 'taken' } as const;
    throw error;
  });
}

/** Postgres' unique_violation. */
const UNIQUE_VIOLATION = '23505';

function createAccount(
  sql: Sql,
  input: { name: string; email: string; organisationName: string },
  hash: string,
): Promise<SignUpResult> {
  return sql.begin(async (tx) => {
    if (await findUserByEmail(tx, input.email)) return { kind: 'taken' } as const;
    const userId = newId();
    await insertUser(tx, { id: userId, name: input.name, email: input.email, verified: false });
    await setPasswordHash(tx, userId, hash);
    const organisationId = newId();
    await insertOrganisation(tx, { id: organisationId, name: input.organisationName, ownerId: userId, features: [] });
    await insertMember(tx, { organisationId, userId, role: 'OWNER' });
    return { kind: 'created', userId } as const;
  });
}
