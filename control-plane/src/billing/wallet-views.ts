/**
 * The wallet reads of spec document 2 (GET /wallet/{organisationId}…): the pay-as-you-go wallet, its history and
 * whether it can pay an amount. Money is shown in major units at this edge; the ledger keeps integer units.
 */
import type { Queryable } from '../db/database.ts';
import { notFound } from '../errors.ts';
import { listTransactions } from '../wallet/ledger-repository.ts';
import type { LedgerTransaction, TransactionType } from '../wallet/ledger-types.ts';
import { MINOR_PER_MAJOR } from '../wallet/money.ts';
import { readWallet, type WalletSummary } from '../wallet/wallet.ts';
import { pageOf, pagination, parseDateRange } from './query-values.ts';
import { E4 } from './rate-card.ts';

export async function walletSummary(sql: Queryable, organisationId: string): Promise<WalletSummary> {
  const wallet = await readWallet(sql, organisationId);
  if (!wallet) throw notFound('Wallet');
  return { balance: wallet.balance, currency: wallet.currency, hasPaid: wallet.hasPaid };
}

/**
 * A wallet transaction (spec document 1). Amounts are signed: negative when money left the wallet. Plan-wallet
 * lines carry their own currency in minor units with up to 4 decimals, and 0 in the US dollar fields.
 */
export interface TransactionView {
  id: string;
  type: TransactionType;
  amount: number;
  balanceAfter: number;
  referenceType: string;
  referenceId: string | null;
  description: string;
  createdAt: string;
  unit?: 'MINOR';
  currency?: string;
  amountMinor?: number;
  balanceMinorAfter?: number;
}

export function transactionView(transaction: LedgerTransaction): TransactionView {
  const common = {
    id: transaction.id,
    type: transaction.type,
    referenceType: transaction.referenceType,
    referenceId: transaction.referenceId,
    description: transaction.description,
    createdAt: transaction.createdAt.toISOString(),
  };
  if (transaction.wallet === 'WALLET') {
    return {
      ...common,
      amount: transaction.amount / MINOR_PER_MAJOR,
      balanceAfter: transaction.balanceAfter / MINOR_PER_MAJOR,
    };
  }
  return {
    ...common,
    amount: 0,
    balanceAfter: 0,
    unit: 'MINOR',
    currency: transaction.currency,
    amountMinor: transaction.amount / E4,
    balanceMinorAfter: transaction.balanceAfter / E4,
  };
}

export interface TransactionQuery {
  type?: TransactionType;
  startDate?: string;
  endDate?: string;
  page?: number;
  limit?: number;
}

/** Both wallets' transactions, newest first, a page at a time. */
export async function walletTransactions(sql: Queryable, organisationId: string, query: TransactionQuery) {
  const range = parseDateRange(query.startDate, query.endDate);
  const page = pageOf(query.page, query.limit);
  const { transactions, total } = await listTransactions(sql, {
    organisationId,
    type: query.type,
    ...range,
    limit: page.limit,
    offset: page.offset,
  });
  return { transactions: transactions.map(transactionView), pagination: pagination(page, total) };
}

/** Whether the pay-as-you-go wallet holds `amount` US dollars (false when there is no wallet yet). */
export async function checkBalance(sql: Queryable, organisationId: string, amount: number) {
  const wallet = await readWallet(sql, organisationId);
  // Whole cents, rounded up: 0.001 needs a cent, never nothing.
  const requiredMinor = Math.ceil(Math.round(amount * MINOR_PER_MAJOR * 1_000) / 1_000);
  return { hasEnoughBalance: wallet !== undefined && wallet.balanceMinor >= requiredMinor, requiredAmount: amount };
}
