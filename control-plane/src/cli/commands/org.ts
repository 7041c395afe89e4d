import { broadcastRevocation, CliError, list, print, requireFlag, withDatabase, type CommandArgs } from '../command.ts';
import { FEATURES, provisionOrganisation, setFeatures, type Feature } from '../../accounts/provisioning.ts';
import { isId } from '../../db/ids.ts';
import { formatDollars, parseDollars } from '../../wallet/money.ts';

/** Who the wallet journal names for a credit given here. */
const CLI_ACTOR = 'parley org create';
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export async function runOrg(args: CommandArgs): Promise<number> {
  const [action, id] = args.positionals;
  if (action === 'create') return create(args);
  if (action === 'features') return features(args, id);
  throw new CliError('usage: parley org create … | parley org features ID …');
}

async function create(args: CommandArgs): Promise<number> {
  const name = requireFlag(args, 'name');
  const ownerEmail = requireFlag(args, 'owner-email');
  if (!EMAIL.test(ownerEmail)) throw new CliError('--owner-email must be an e-mail address');
  const creditMinor = args.flags.credit === undefined ? 0 : parseDollars(args.flags.credit);
  if (creditMinor === undefined) throw new CliError('--credit must be an amount in dollars such as 10 or 2.50');
  const created = await withDatabase((db) =>
    provisionOrganisation(db.sql, {
      name,
      ownerEmail,
      ownerName: args.flags['owner-name'],
      credit: { amountMinor: creditMinor, reason: 'Sign-up credit (parley org create --credit)', actor: CLI_ACTOR },
    }),
  );
  print(
    args.flags.json,
    {
      organisationId: created.organisationId,
      userId: created.userId,
      apiKey: created.apiKey.key,
      apiKeyId: created.apiKey.id,
      scopes: created.apiKey.scopes,
      creditUsd: formatDollars(creditMinor),
    },
    [
      `Organisation ${created.organisationId} created; owner user ${created.userId}.`,
      `API key with every scope (shown once): ${created.apiKey.key}`,
      creditMinor > 0
        ? `Wallet credited with ${formatDollars(creditMinor)} USD.`
        : 'The wallet is empty: calls and number purchases answer 402 until it is credited (--credit).',
    ].join('\n'),
  );
  return 0;
}

async function features(args: CommandArgs, id: string | undefined): Promise<number> {
  if (!id || !isId(id)) throw new CliError('parley org features needs the organisation id (24 hex characters)');
  const enable = list(args.flags.enable);
  const disable = list(args.flags.disable);
  for (const name of [...enable, ...disable]) {
    if (!(FEATURES as readonly string[]).includes(name))
      throw new CliError(`unknown feature "${name}"; known: ${FEATURES.join(', ')}`);
  }
  const result = await withDatabase(async (db, config) => {
    const updated = await setFeatures(db.sql, id, enable as Feature[], disable as Feature[]);
    // Cached principals carry the feature flags: running servers drop them so the change applies at once.
    if (updated) await broadcastRevocation(config.natsUrl, { organisationId: id });
    return updated;
  });
  if (!result) throw new CliError(`no organisation ${id}`);
  print(
    args.flags.json,
    { organisationId: id, features: result },
    `Features of ${id}: ${result.join(', ') || '(none)'}`,
  );
  return 0;
}
