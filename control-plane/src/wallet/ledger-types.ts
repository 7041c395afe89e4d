/** The ledger's vocabulary (docs/architecture.md §10), shared by the ledger, metering, billing and payments. */

/** Spec document 1, wallet transaction `type`. */
export type TransactionType = 'CREDIT' | 'DEBIT' | 'REFUND' | 'ADJUSTMENT';
export const TRANSACTION_TYPES: readonly TransactionType[] = ['CREDIT', 'DEBIT', 'REFUND', 'ADJUSTMENT'];

/**
 * An organisation's wallets: WALLET is pay-as-you-go (billing model LEGACY_USD; US dollars, in cents), PLAN_WALLET
 * is plan billing's wallet of grants (billing model WALLET; the country's currency, in minor units with 4 decimals).
 */
export type WalletKind = 'WALLET' | 'PLAN_WALLET';

/** Units per minor unit: cents for the pay-as-you-go wallet, 1/10000 of a minor unit for the plan wallet. */
export const WALLET_SCALE: Record<WalletKind, number> = { WALLET: 1, PLAN_WALLET: 10_000 };

/** The platform's side of every posting; none keeps a stored balance. */
export type PlatformAccountName =
  /** Usage charged to wallets (calls, replies, recordings, rentals). */
  | 'revenue'
  /** Money received from the payment processor. */
  | 'payments'
  /** Money given away: the sign-up credit, the bootstrap credit. */
  | 'promotions'
  /** Operator adjustments (`parley wallet credit/debit`). */
  | 'adjustments'
  /** Plan money whose time ran out. */
  | 'expired'
  /** A plan's allowance put in the wallet each cycle (paid by the plan's fee). */
  | 'plan_allowance';

/** Where plan-wallet money came from (spec document 1, Plan wallet balance `grants[].source`). */
export type GrantSource = 'PLAN_CYCLE' | 'TOP_UP' | 'SIGNUP_CREDIT';

/** A transaction as its wallet sees it: the sum of the wallet's entries and the balance after them. */
export interface LedgerTransaction {
  id: string;
  type: TransactionType;
  wallet: WalletKind;
  referenceType: string;
  referenceId: string | null;
  description: string;
  actor: string;
  reversesId: string | null;
  createdAt: Date;
  /** Signed, in the wallet's units. */
  amount: number;
  balanceAfter: number;
  currency: string;
  scale: number;
}
