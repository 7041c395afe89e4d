/**
 * The organisation's wallet as the rest of Parley needs it today: what it holds, whether it can pay for a call or
 * a number (spec document 2: searches, purchases and calls need at least the minimum balance, default 1; 402
 * otherwise), and the operator's credits. Nothing is debited yet: metering lands with the billing issue, whose
 * ledger takes over `wallet_adjustments` as its ADJUSTMENT entries.
 */
import type { Queryable } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import { MINOR_PER_MAJOR } from './money.ts';
import { insertAdjustment, readWalletRow, type AdjustmentRow } from './repository.ts';

/** Spec document 3: minimum wallet balance for number purchases and renewals, default 1 (major unit), in minor units. */
export const MINIMUM_BALANCE_MINOR = 100;
/** The currency of a wallet opened by a credit (pay-as-you-go wallets are in US dollars). */
export const DEFAULT_CURRENCY = 'USD';

/** The wallet as spec document 1 shows it: balance in major units. */
export interface WalletSummary {
  balance: number;
  currency: string;
  hasPaid: boolean;
}

export interface WalletState extends WalletSummary {
  balanceMinor: number;
}

export async function readWallet(sql: Queryable, organisationId: string): Promise<WalletState | undefined> {
  const row = await readWalletRow(sql, organisationId);
  return row && { ...row, balance: row.balanceMinor / MINOR_PER_MAJOR };
}

/**
 * 402 unless the organisation's wallet holds at least `minimumMinor`. Nothing is debited: the carrier bills the
 * customer's own account (carrier-b), or Parley's reseller account is paid separately (India numbers).
 */
export async function assertFunded(
  sql: Queryable,
  organisationId: string,
  minimumMinor = MINIMUM_BALANCE_MINOR,
): Promise<WalletState> {
  const wallet = await readWallet(sql, organisationId);
  if (!wallet || wallet.balanceMinor < minimumMinor) {
    const minimum = (minimumMinor / MINOR_PER_MAJOR).toFixed(2);
    const currency = wallet?.currency ?? DEFAULT_CURRENCY;
    const has = wallet ? `holds ${wallet.balance.toFixed(2)} ${currency}` : 'has no funds yet';
    throw new ApiError(
      'payment_required',
      `The wallet ${has}: at least ${minimum} ${currency} is needed. Top up the wallet first`,
    );
  }
  return wallet;
}

/** An operator's credit (positive) or debit (negative) of `amountMinor`, journaled with who and why. */
export function adjustWallet(
  tx: Queryable,
  adjustment: { organisationId: string; amountMinor: number; reason: string; actor: string },
): Promise<AdjustmentRow> {
  return insertAdjustment(tx, { ...adjustment, currency: DEFAULT_CURRENCY });
}
