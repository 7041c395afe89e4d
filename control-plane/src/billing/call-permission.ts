/**
 * May this organisation place a call now? The one decision behind billing status `canMakeCalls` and the 402 a call
 * launch answers (spec document 3: wallet not funded or below the minimum balance, account suspended). One query.
 *
 * Pay-as-you-go: the organisation is active and not suspended, the wallet holds at least the minimum balance (1.00)
 * and no usage is left unpaid (a call the wallet could not pay is settled by the next top-up first).
 * Plan billing: the same, with the plan wallet's spendable grants (money not lapsed) in place of the wallet.
 */
import type { Queryable } from '../db/database.ts';
import { WALLET_SCALE } from '../wallet/ledger-types.ts';
import { formatDollars } from '../wallet/money.ts';
import { MINIMUM_BALANCE_MINOR } from '../wallet/wallet.ts';
import { readCallPermissionFacts, type CallPermissionFacts } from './call-permission-repository.ts';

export type CallRefusalReason =
  | 'organisation_not_found'
  | 'organisation_inactive'
  | 'suspended'
  | 'unpaid_usage'
  | 'insufficient_balance';

export type CallPermission = { allowed: true } | { allowed: false; reason: CallRefusalReason; message: string };

/** The plan wallet must hold at least one major unit (1 rupee or 1 US dollar) too, in its units (minor e4). */
const PLAN_MINIMUM_E4 = MINIMUM_BALANCE_MINOR * WALLET_SCALE.PLAN_WALLET;

export async function callPermission(sql: Queryable, organisationId: string, at = new Date()): Promise<CallPermission> {
  const facts = await readCallPermissionFacts(sql, organisationId, at);
  if (!facts) return { allowed: false, reason: 'organisation_not_found', message: 'Organisation not found' };
  return decideCallPermission(facts);
}

/** The rule itself, for callers that already read the facts (billing status). */
export function decideCallPermission(facts: CallPermissionFacts): CallPermission {
  if (!facts.isActive) {
    return { allowed: false, reason: 'organisation_inactive', message: 'The organisation is not active' };
  }
  if (facts.isSuspended) {
    const why = facts.suspendedReason ? `: ${facts.suspendedReason}` : '';
    return { allowed: false, reason: 'suspended', message: `The billing account is suspended${why}` };
  }
  if (facts.hasUnpaidUsage) {
    return {
      allowed: false,
      reason: 'unpaid_usage',
      message: 'Earlier usage is still unpaid: top up the wallet to settle it before placing calls',
    };
  }
  if (facts.billingModel === 'WALLET') {
    const spendable = facts.planSpendableE4 ?? 0;
    if (spendable >= PLAN_MINIMUM_E4) return { allowed: true };
    const held = formatDollars(Math.floor(spendable / WALLET_SCALE.PLAN_WALLET));
    const currency = facts.planCurrency ? ` ${facts.planCurrency}` : '';
    return {
      allowed: false,
      reason: 'insufficient_balance',
      message:
        `The plan wallet has ${held}${currency} to spend: at least ${formatDollars(MINIMUM_BALANCE_MINOR)}${currency} ` +
        'is needed. Top up the plan wallet or subscribe to a plan first',
    };
  }
  const balance = facts.walletBalanceMinor ?? 0;
  if (balance >= MINIMUM_BALANCE_MINOR) return { allowed: true };
  const currency = facts.walletCurrency ?? 'USD';
  const has = facts.walletBalanceMinor === null ? 'has no funds yet' : `holds ${formatDollars(balance)} ${currency}`;
  return {
    allowed: false,
    reason: 'insufficient_balance',
    message: `The wallet ${has}: at least ${formatDollars(MINIMUM_BALANCE_MINOR)} ${currency} is needed. Top up the wallet first`,
  };
}
