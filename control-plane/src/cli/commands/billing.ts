/**
 * `parley billing`: the operator's switches for an organisation's billing (docs/architecture.md §10) — put it on a
 * plan (plan billing, its first allowance at once), suspend its calling with a reason, resume it.
 */
import { activatePlan, setSuspended } from '../../billing/subscriptions.ts';
import { isId } from '../../db/ids.ts';
import { ApiError } from '../../errors.ts';
import { CliError, print, requireFlag, withDatabase, type CommandArgs } from '../command.ts';

const E4_PER_MAJOR = 1_000_000;

export async function runBilling(args: CommandArgs): Promise<number> {
  const [action] = args.positionals;
  const organisationId = requireFlag(args, 'org');
  if (!isId(organisationId)) throw new CliError('--org must be an organisation id (24 hex characters)');
  try {
    if (action === 'plan') return await plan(args, organisationId);
    if (action === 'suspend') return await suspend(args, organisationId, requireFlag(args, 'reason'));
    if (action === 'resume') return await suspend(args, organisationId, null);
  } catch (error) {
    // The domain's refusals are the operator's mistakes here: said plainly, exit code 2.
    if (error instanceof ApiError) throw new CliError(error.message);
    throw error;
  }
  throw new CliError(
    'usage: parley billing plan --org ID --plan CODE | suspend --org ID --reason TEXT | resume --org ID',
  );
}

async function plan(args: CommandArgs, organisationId: string): Promise<number> {
  const planCode = requireFlag(args, 'plan');
  const activation = await withDatabase((db) =>
    db.sql.begin((tx) =>
      activatePlan(tx, { organisationId, plan: { code: planCode }, actor: `parley billing plan (${operator()})` }),
    ),
  );
  const allowance = (activation.allowanceE4 / E4_PER_MAJOR).toFixed(2);
  print(
    args.flags.json,
    { ...activation, periodEnd: activation.periodEnd.toISOString(), allowance },
    `Organisation ${organisationId} is on plan ${activation.planCode} (subscription ${activation.subscriptionId}); ` +
      `${allowance} ${activation.currency} of allowance is in its plan wallet until ${activation.periodEnd.toISOString()}.`,
  );
  return 0;
}

async function suspend(args: CommandArgs, organisationId: string, reason: string | null): Promise<number> {
  await withDatabase((db) => db.sql.begin((tx) => setSuspended(tx, organisationId, reason)));
  print(
    args.flags.json,
    { organisationId, suspended: reason !== null, reason },
    reason === null
      ? `Organisation ${organisationId} may place calls again.`
      : `Organisation ${organisationId} is suspended: its calls are refused with 402 ("${reason}").`,
  );
  return 0;
}

/** Who the journal names: the operator's login. */
function operator(): string {
  return process.env.USER ?? process.env.LOGNAME ?? 'operator';
}
