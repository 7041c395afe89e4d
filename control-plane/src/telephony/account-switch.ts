/**
 * Connecting another account of a carrier the organisation already uses (spec document 2): the old account's numbers
 * are retired, and the switch is refused with 409 while any agent still answers on or dials out from one of them.
 * Every carrier's connect applies it, before reading the new account and again inside the commit.
 */
import type { Queryable } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import type { StoredIntegration } from './integration-repository.ts';
import { agentsUsingNumbers, retireNumbers } from './phone-number-repository.ts';

/** Agents named in the refusal at most; the rest are counted. */
const LISTED_AGENTS = 5;

/** Throws 409 numbers_in_use naming the agents that still use numbers of the account being replaced. */
export async function assertNumbersFree(sql: Queryable, replaced: StoredIntegration): Promise<void> {
  const uses = await agentsUsingNumbers(sql, replaced.id);
  if (!uses.length) return;
  const listed = uses
    .slice(0, LISTED_AGENTS)
    .map((u) => `${u.agentName} (${u.use === 'answers' ? 'answers on' : 'dials out from'} ${u.phoneNumber})`);
  const more = uses.length > LISTED_AGENTS ? ` and ${uses.length - LISTED_AGENTS} more` : '';
  throw new ApiError(
    'numbers_in_use',
    `Agents still use numbers of the ${replaced.provider} account being replaced: ${listed.join(', ')}${more}. ` +
      "Unassign those numbers and change those agents' callingNumber first",
  );
}

/** Inside the change's commit: checks again that nothing uses the old account's numbers, retires them, counts them. */
export async function retireReplacedAccount(tx: Queryable, replaced: StoredIntegration | undefined): Promise<number> {
  if (!replaced) return 0;
  await assertNumbersFree(tx, replaced);
  return retireNumbers(tx, replaced.id);
}
