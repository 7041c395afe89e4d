/**
 * `parley users password --email E`: sets a user's password for the MCP sign-in pages (docs/architecture.md §17),
 * read from standard input (first line) so it appears in no process list or shell history. Users made by
 * `parley org create`, the first start or an invitation have none until it is set here (or they sign up anew).
 */
import { text } from 'node:stream/consumers';
import { CliError, print, requireFlag, withDatabase, type CommandArgs } from '../command.ts';
import { findUserByEmail } from '../../accounts/repository.ts';
import { hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../oauth/password.ts';
import { setPasswordHash } from '../../oauth/repository.ts';

export async function runUsers(args: CommandArgs): Promise<number> {
  const [action] = args.positionals;
  if (action !== 'password') throw new CliError('usage: parley users password --email E < password');
  const email = requireFlag(args, 'email');
  const password = (await text(process.stdin)).split(/\r?\n/)[0] ?? '';
  if (password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH) {
    throw new CliError(
      `the password (first line of standard input) must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`,
    );
  }
  const userId = await withDatabase(async (db) => {
    const user = await findUserByEmail(db.sql, email);
    if (!user) throw new CliError(`no user with e-mail ${email}`);
    await setPasswordHash(db.sql, user.id, await hashPassword(password));
    return user.id;
  });
  print(args.flags.json, { userId, email }, `Password set for ${email}: log in at /oauth/login.`);
  return 0;
}
