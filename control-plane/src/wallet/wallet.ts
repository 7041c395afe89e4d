/**
 * The organisation's pay-as-you-go wallet as the rest of Parley needs it: what it holds, whether it can pay for a
 * call or a number (spec document 3: at least the minimum balance, default 1; 402 otherwise), and the operator's
 * adjustments. Every change goes through the ledger (ledger.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import { post, type PostResult } from './ledger.ts';
import { readWalletAccount } from './ledger-repository.ts';
import { MINOR_PER_MAJOR, formatDollars } from './money.ts';

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
  const account = await readWalletAccount(sql, organisationId, 'WALLET');
  return (
    account && {
      balanceMinor: account.balance,
      balance: account.balance / MINOR_PER_MAJOR,
      currency: account.currency,
      hasPaid: account.hasPaid,
    }
  );
}

/**
 * 402 unless the organisation's wallet holds at least `minimumMinor`. Nothing is debited here: calls are charged
 * when they end (billing/metering.ts), numbers by the carrier or the reseller account.
 */
export async function assertFunded(
  sql: Queryable,
  organisationId: string,
  minimumMinor = MINIMUM_BALANCE_MINOR,
): Promise<WalletState> {
  const wallet = await readWallet(sql, organisationId);
  if (!wallet || wallet.balanceMinor < minimumMinor) {
    const currency = wallet?.currency ?? DEFAULT_CURRENCY;
    const has = wallet ? `holds ${formatDollars(wallet.balanceMinor)} ${currency}` : 'has no funds yet';
    throw new ApiError(
      'payment_required',
      `The wallet ${has}: at least ${formatDollars(minimumMinor)} ${currency} is needed. Top up the wallet first`,
    );
  }
  return wallet;
}

export interface Adjustment {
  organisationId: string;
  /** Positive credits, negative debits; cents. */
  amountMinor: number;
  reason: string;
  /** Who made it: `parley start (bootstrap)`, `parley org create`, an operator's name. */
  actor: string;
  /** The same command retried finds its first posting; default: a new adjustment each time. */
  idempotencyKey?: string;
  /** Money given away (bootstrap and sign-up credits) rather than an operator's correction. */
  promotion?: boolean;
}

/**
 * An operator's credit or debit of the pay-as-you-go wallet, journaled as an ADJUSTMENT with who and why. A debit
 * the wallet cannot pay is refused (`insufficient_funds`), never taken below zero.
 */
export function adjustWallet(tx: Queryable, adjustment: Adjustment): Promise<PostResult> {
  return post(tx, {
    organisationId: adjustment.organisationId,
    wallet: 'WALLET',
    currency: DEFAULT_CURRENCY,
    type: 'ADJUSTMENT',
    amount: adjustment.amountMinor,
    counterparty: adjustment.promotion ? 'promotions' : 'adjustments',
    referenceType: 'ADJUSTMENT',
    description: adjustment.reason,
    actor: adjustment.actor,
    idempotencyKey: adjustment.idempotencyKey ?? `adjustment:${randomUUID()}`,
  });
}
