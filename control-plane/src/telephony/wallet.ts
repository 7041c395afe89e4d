/**
 * The wallet checks telephony needs (spec document 2: carrier-b search needs a funded wallet; number purchases
 * and renewals need a wallet at or above the minimum balance, default 1, without being debited; 402 otherwise).
 * Until the billing issue lands the balance is read from wallet_balances (migration 004), which billing will own.
 */
import type { Queryable } from '../db/database.ts';
import { ApiError } from '../errors.ts';

/** Spec document 3: minimum wallet balance for number purchases and renewals, default 1 (major unit), in minor units. */
export const MINIMUM_BALANCE_MINOR = 100;
/** Minor units per major unit of the wallet currencies (USD cents, INR paise). */
const MINOR_PER_MAJOR = 100;

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
  const [row] = await sql<{ balance_minor: string; currency: string; has_paid: boolean }[]>`
    select balance_minor, currency, has_paid from wallet_balances where organisation_id = ${organisationId}`;
  if (!row) return undefined;
  const balanceMinor = Number(row.balance_minor);
  return { balanceMinor, balance: balanceMinor / MINOR_PER_MAJOR, currency: row.currency, hasPaid: row.has_paid };
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
    const currency = wallet?.currency ?? 'USD';
    const has = wallet ? `holds ${wallet.balance.toFixed(2)} ${currency}` : 'has no funds yet';
    throw new ApiError(
      'payment_required',
      `The wallet ${has}: at least ${minimum} ${currency} is needed. Top up the wallet first`,
    );
  }
  return wallet;
}
