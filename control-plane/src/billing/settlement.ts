/**
 * Paying for usage from the wallet (docs/architecture.md §10). A usage record is debited when it is metered; when
 * the wallet cannot pay, the record stays unpaid (walletDeducted false), the organisation cannot place calls
 * (billing-status.ts), and the next credit of the wallet settles what is owed, oldest first.
 */
import type { Queryable } from '../db/database.ts';
import { post } from '../wallet/ledger.ts';
import { WALLET_SCALE } from '../wallet/ledger-types.ts';
import { markUsagePaid, unpaidUsage, type UsageRecord } from './usage-repository.ts';

/** Usage records are priced in minor units with 4 decimals. */
const E4 = 10_000;

/** What a usage record costs its wallet, in the wallet's units. */
export function walletUnitsOf(usage: Pick<UsageRecord, 'totalE4' | 'wallet'>): number {
  return usage.totalE4 / (E4 / WALLET_SCALE[usage.wallet]);
}

/** Debits the wallet for `usage`, once (keyed on the record); false when the wallet cannot pay it now. */
export async function chargeUsage(tx: Queryable, usage: UsageRecord): Promise<boolean> {
  const amount = walletUnitsOf(usage);
  if (amount === 0) {
    await markUsagePaid(tx, usage.id, null);
    return true;
  }
  const result = await post(tx, {
    organisationId: usage.organisationId,
    wallet: usage.wallet,
    currency: usage.currency,
    type: 'DEBIT',
    amount: -amount,
    counterparty: 'revenue',
    referenceType: usage.usageType,
    referenceId: usage.voiceSessionId ?? usage.id,
    description: describe(usage),
    actor: 'metering',
    idempotencyKey: `usage:${usage.id}`,
  });
  if (result.status === 'insufficient_funds') return false;
  await markUsagePaid(tx, usage.id, result.transaction.id);
  return true;
}

/** After a credit: pays the organisation's unpaid usage, oldest first, until the wallet runs short. Returns how many. */
export async function settleUnpaidUsage(tx: Queryable, organisationId: string): Promise<number> {
  let settled = 0;
  for (const usage of await unpaidUsage(tx, organisationId)) {
    if (!(await chargeUsage(tx, usage))) break;
    settled += 1;
  }
  return settled;
}

function describe(usage: UsageRecord): string {
  switch (usage.usageType) {
    case 'VOICE_CALL':
      return `Call ${usage.roomName ?? usage.voiceSessionId ?? ''}: ${usage.billedSeconds} s billed of ${usage.durationSeconds} s`.trim();
    case 'CHATBOT_MESSAGE':
      return `Chat replies: ${usage.messageCount}`;
    case 'RECORDING':
      return `Recording of call ${usage.roomName ?? usage.voiceSessionId ?? ''}`.trim();
    case 'NUMBER_RENTAL':
      return 'Phone number rental';
    default:
      return `${usage.usageType} usage`;
  }
}
