import { broadcastRevocation, CliError, list, print, requireFlag, withDatabase, type CommandArgs } from '../command.ts';
import { insertApiKey, revokeKeyById } from '../../auth/api-key-repository.ts';
import { findOrganisationRow, findUser, isPersonOf } from '../../accounts/repository.ts';
import { isScope, WIDGET_SCOPE, type Scope } from '../../auth/scopes.ts';
import { isId } from '../../db/ids.ts';

export async function runKeys(args: CommandArgs): Promise<number> {
  const [action, id] = args.positionals;
  if (action === 'create') return create(args);
  if (action === 'revoke') return revoke(args, id);
  throw new CliError('usage: parley keys create … | parley keys revoke ID');
}

async function create(args: CommandArgs): Promise<number> {
  const organisationId = requireFlag(args, 'org');
  const name = requireFlag(args, 'name');
  const scopes = list(requireFlag(args, 'scopes'));
  if (!isId(organisationId)) throw new CliError('--org must be an organisation id (24 hex characters)');
  for (const scope of scopes) {
    if (!isScope(scope) || scope === WIDGET_SCOPE) throw new CliError(`unknown scope "${scope}"`);
  }
  if (args.flags.user !== undefined && !isId(args.flags.user)) throw new CliError('--user must be a user id');
  const created = await withDatabase(async (db) => {
    const organisation = await findOrganisationRow(db.sql, organisationId);
    if (!organisation) throw new CliError(`no organisation ${organisationId}`);
    const userId = args.flags.user ?? organisation.owner_id;
    if (!(await findUser(db.sql, userId))) throw new CliError(`no user ${userId}`);
    if (!(await isPersonOf(db.sql, organisationId, userId)))
      throw new CliError(`user ${userId} is not a member of organisation ${organisationId}`);
    return insertApiKey(db.sql, { organisationId, userId, name, scopes: scopes as Scope[] });
  });
  print(
    args.flags.json,
    { id: created.id, apiKey: created.key, organisationId, scopes: created.scopes },
    `API key ${created.id} (shown once): ${created.key}`,
  );
  return 0;
}

async function revoke(args: CommandArgs, id: string | undefined): Promise<number> {
  if (!id || !isId(id)) throw new CliError('parley keys revoke needs the key id (24 hex characters)');
  const revokedAt = await withDatabase(async (db, config) => {
    const revokedAt = await revokeKeyById(db.sql, id);
    if (!revokedAt) throw new CliError(`no API key ${id}`);
    await broadcastRevocation(config.natsUrl, { keyId: id });
    return revokedAt;
  });
  print(args.flags.json, { id, revokedAt: revokedAt.toISOString() }, `API key ${id} revoked.`);
  return 0;
}
