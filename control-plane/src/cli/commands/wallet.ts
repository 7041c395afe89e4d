/**
 * `parley wallet credit|debit|show`: the operator's tool for the pay-as-you-go wallet (issue 14, item 1). Every
 * change is an ADJUSTMENT journaled through the ledger (wallet.ts adjustWallet) with who made it and why; a credit
 * then settles the organisation's unpaid usage, oldest first, in the same transaction. A debit the wallet cannot pay
 * is refused whole (exit code 2), never taken below zero.
 */
import os from 'node:os';
import { organisationName } from '../../accounts/repository.ts';
import { settleUnpaidUsage } from '../../billing/settlement.ts';
import { unpaidUsage } from '../../billing/usage-repository.ts';
import { isId } from '../../db/ids.ts';
import { listTransactions } from '../../wallet/ledger-repository.ts';
import type { LedgerTransaction } from '../../wallet/ledger-types.ts';
import { formatDollars, parseDollars } from '../../wallet/money.ts';
import { adjustWallet, DEFAULT_CURRENCY, readWallet } from '../../wallet/wallet.ts';
import { CliError, print, requireFlag, withDatabase, type CommandArgs } from '../command.ts';

/** Transactions `parley wallet show` lists, newest first. */
const SHOWN_TRANSACTIONS = 10;

export async function runWallet(args: CommandArgs): Promise<number> {
  const [action] = args.positionals;
  if (action === 'credit' || action === 'debit') return adjust(args, action);
  if (action === 'show') return show(args);
  throw new CliError(
    'usage: parley wallet credit|debit --org ID --amount 5.00 --reason "…" | parley wallet show --org ID',
  );
}

function organisationFlag(args: CommandArgs): string {
  const id = requireFlag(args, 'org');
  if (!isId(id)) throw new CliError('--org must be an organisation id (24 hex characters)');
  return id;
}

/** Who the journal names: --actor, else the operator's login name. */
function actorOf(args: CommandArgs): string {
  const given = args.flags.actor?.trim();
  if (given) return given.slice(0, 200);
  try {
    return os.userInfo().username || 'operator';
  } catch {
    return process.env.USER || 'operator';
  }
}

type Adjusted = { refused: number } | { transaction: LedgerTransaction; settled: number; balanceMinor: number };

async function adjust(args: CommandArgs, action: 'credit' | 'debit'): Promise<number> {
  const organisationId = organisationFlag(args);
  const amountMinor = parseDollars(requireFlag(args, 'amount'));
  if (amountMinor === undefined || amountMinor === 0)
    throw new CliError('--amount must be a positive amount in dollars such as 5 or 2.50');
  const reason = requireFlag(args, 'reason');
  if (reason.length > 500) throw new CliError('--reason must be at most 500 characters');
  const actor = actorOf(args);
  const outcome = await withDatabase(async (db): Promise<Adjusted> => {
    if (!(await organisationName(db.sql, organisationId))) throw new CliError(`no organisation ${organisationId}`);
    return (await db.sql.begin(async (tx): Promise<Adjusted> => {
      const result = await adjustWallet(tx, {
        organisationId,
        amountMinor: action === 'credit' ? amountMinor : -amountMinor,
        reason,
        actor,
      });
      if (result.status === 'insufficient_funds') return { refused: result.spendable };
      // Money came in: what the organisation owes for usage is paid from it now.
      const settled = action === 'credit' ? await settleUnpaidUsage(tx, organisationId) : 0;
      // The balance now: what the adjustment left, less any usage it paid.
      const balanceMinor = (await readWallet(tx, organisationId))?.balanceMinor ?? result.transaction.balanceAfter;
      return { transaction: result.transaction, settled, balanceMinor };
    })) as Adjusted;
  });
  if ('refused' in outcome)
    throw new CliError(
      `the wallet holds ${formatDollars(outcome.refused)} ${DEFAULT_CURRENCY}: a debit of ${formatDollars(amountMinor)} cannot be paid; nothing was changed`,
    );
  const { transaction, settled, balanceMinor } = outcome;
  print(
    args.flags.json,
    {
      organisationId,
      transactionId: transaction.id,
      type: transaction.type,
      amount: formatDollars(transaction.amount),
      balanceAfter: formatDollars(transaction.balanceAfter),
      balance: formatDollars(balanceMinor),
      currency: transaction.currency,
      reason,
      actor,
      settledUsageRecords: settled,
    },
    [
      `${action === 'credit' ? 'Credited' : 'Debited'} ${formatDollars(amountMinor)} ${transaction.currency} (${transaction.id}, by ${actor}): balance ${formatDollars(transaction.balanceAfter)} ${transaction.currency}.`,
      ...(settled > 0
        ? [
            `Paid ${settled} unpaid usage record${settled === 1 ? '' : 's'} from it: balance now ${formatDollars(balanceMinor)} ${transaction.currency}.`,
          ]
        : []),
    ].join('\n'),
  );
  return 0;
}

async function show(args: CommandArgs): Promise<number> {
  const organisationId = organisationFlag(args);
  const shown = await withDatabase(async (db) => {
    if (!(await organisationName(db.sql, organisationId))) throw new CliError(`no organisation ${organisationId}`);
    const wallet = await readWallet(db.sql, organisationId);
    const { transactions } = await listTransactions(db.sql, {
      organisationId,
      wallet: 'WALLET',
      limit: SHOWN_TRANSACTIONS,
      offset: 0,
    });
    const owed = await unpaidUsage(db.sql, organisationId);
    return { wallet, transactions, owed };
  });
  const currency = shown.wallet?.currency ?? DEFAULT_CURRENCY;
  const balanceMinor = shown.wallet?.balanceMinor ?? 0;
  const owedMinor = shown.owed.filter((u) => u.wallet === 'WALLET').reduce((sum, u) => sum + u.totalE4 / 10_000, 0);
  const rows = shown.transactions.map((t) => ({
    id: t.id,
    type: t.type,
    amount: formatDollars(t.amount),
    balanceAfter: formatDollars(t.balanceAfter),
    referenceType: t.referenceType,
    description: t.description,
    actor: t.actor,
    createdAt: t.createdAt.toISOString(),
  }));
  print(
    args.flags.json,
    {
      organisationId,
      balance: formatDollars(balanceMinor),
      currency,
      hasPaid: shown.wallet?.hasPaid ?? false,
      unpaidUsageRecords: shown.owed.length,
      unpaidAmount: formatDollars(Math.ceil(owedMinor)),
      transactions: rows,
    },
    [
      `Wallet of ${organisationId}: ${formatDollars(balanceMinor)} ${currency}` +
        (shown.owed.length > 0
          ? `; ${shown.owed.length} usage records unpaid (${formatDollars(Math.ceil(owedMinor))} ${currency})`
          : ''),
      ...(rows.length === 0 ? ['No transactions yet.'] : [`Last ${rows.length} transactions, newest first:`]),
      ...rows.map(
        (t) =>
          `  ${t.createdAt}  ${t.type.padEnd(10)} ${t.amount.padStart(10)}  → ${t.balanceAfter.padStart(10)}  ${t.actor}: ${t.description}`,
      ),
    ].join('\n'),
  );
  return 0;
}
