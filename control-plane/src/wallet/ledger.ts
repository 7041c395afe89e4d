/**
 * The ledger (docs/architecture.md §10): every change of a wallet's balance is a transaction of entries that sum to
 * zero — the wallet's side and the platform's — written in the caller's database transaction together with the
 * stored balance it moves. Nothing is ever updated: a mistake is corrected by `reverse`.
 *
 * Exactly once: each posting names an idempotency key (the call id for a call's charge, the processor's payment id
 * for a top-up, a generated id for an operator's command). Postings to one wallet serialise on its account row, so
 * the second posting of a key, however concurrent, finds the first and changes nothing.
 *
 * Never negative: a debit the wallet cannot pay is refused whole (`insufficient_funds`), nothing written. Plan
 * wallets spend their grants earliest-expiring first and never spend a lapsed one; lapsed grants are moved out by
 * an expiry posting (GRANT_EXPIRY) before any other posting to that wallet, and by the expiry sweep.
 */
import type { Queryable } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import {
  findTransactionByKey,
  insertGrant,
  insertPosting,
  lapsedGrants,
  lockWalletAccount,
  moveGrantRemaining,
  platformAccount,
  readEntries,
  spendableGrants,
  type NewEntry,
  type WalletAccountRow,
} from './ledger-repository.ts';
import {
  WALLET_SCALE,
  type GrantSource,
  type LedgerTransaction,
  type PlatformAccountName,
  type TransactionType,
  type WalletKind,
} from './ledger-types.ts';

export interface Posting {
  organisationId: string;
  wallet: WalletKind;
  /** The wallet's currency; a wallet opened by this posting is opened in it, an existing one must match. */
  currency: string;
  type: TransactionType;
  /** Signed, in the wallet's units (WALLET_SCALE): credits above zero, debits below. */
  amount: number;
  /** The platform account on the other side. */
  counterparty: PlatformAccountName;
  referenceType: string;
  referenceId?: string | null;
  description: string;
  actor: string;
  idempotencyKey: string;
  /** Plan-wallet credits: the grant the money becomes and when it lapses. */
  grant?: { source: GrantSource; expiresAt: Date };
  /** The time the posting is made at (grants lapse against it); default now. Tests and the sweep pass their own. */
  at?: Date;
}

export type PostResult =
  | { status: 'posted'; transaction: LedgerTransaction }
  /** The key was posted before: its transaction, unchanged. */
  | { status: 'duplicate'; transaction: LedgerTransaction }
  /** A debit larger than what the wallet can spend; nothing was written. */
  | { status: 'insufficient_funds'; spendable: number };

export class LedgerError extends Error {
  override name = 'LedgerError';
}

/** Posts one transaction in `tx` (the caller's transaction: its other writes commit or roll back with it). */
export async function post(tx: Queryable, posting: Posting): Promise<PostResult> {
  if (!Number.isSafeInteger(posting.amount) || posting.amount === 0) {
    throw new LedgerError(`a posting moves a whole, non-zero number of units, not ${posting.amount}`);
  }
  const scale = WALLET_SCALE[posting.wallet];
  const account = await lockWalletAccount(tx, posting.organisationId, posting.wallet, posting.currency, scale);
  if (account.currency !== posting.currency) {
    throw new LedgerError(`the ${posting.wallet} holds ${account.currency}, not ${posting.currency}`);
  }
  const earlier = await findTransactionByKey(tx, posting.idempotencyKey);
  if (earlier) return { status: 'duplicate', transaction: earlier };

  const at = posting.at ?? new Date();
  if (posting.wallet === 'PLAN_WALLET') account.balance = await expireLapsed(tx, posting.organisationId, account, at);
  const walletEntries =
    posting.wallet === 'PLAN_WALLET'
      ? await planWalletEntries(tx, account, posting, at)
      : simpleWalletEntries(account, posting.amount);
  if ('spendable' in walletEntries) return { status: 'insufficient_funds', spendable: walletEntries.spendable };

  return write(tx, account, posting, walletEntries.entries, null);
}

/**
 * Reverses a transaction with one that negates each of its entries (grants get their money back). A debit's
 * reversal is a REFUND, anything else's an ADJUSTMENT. Refused when the wallet no longer holds what a credit put
 * in; a transaction is reversed at most once (a second call finds the first reversal).
 */
export async function reverse(
  tx: Queryable,
  original: LedgerTransaction & { organisationId: string },
  why: { description: string; actor: string; idempotencyKey?: string },
): Promise<PostResult> {
  const account = await lockWalletAccount(
    tx,
    original.organisationId,
    original.wallet,
    original.currency,
    original.scale,
  );
  const key = why.idempotencyKey ?? `reversal:${original.id}`;
  const earlier = await findTransactionByKey(tx, key);
  if (earlier) return { status: 'duplicate', transaction: earlier };
  const entries = await readEntries(tx, original.id);
  let balance = account.balance;
  const walletEntries: WalletEntry[] = [];
  for (const entry of entries.filter((e) => e.wallet)) {
    balance -= entry.amount;
    walletEntries.push({ amount: -entry.amount, balanceAfter: balance, grantId: entry.grantId });
  }
  if (balance < 0) return { status: 'insufficient_funds', spendable: account.balance };
  const counterparty = entries.find((e) => !e.wallet)!;
  return write(
    tx,
    account,
    {
      organisationId: original.organisationId,
      wallet: original.wallet,
      currency: original.currency,
      type: original.type === 'DEBIT' ? 'REFUND' : 'ADJUSTMENT',
      amount: -original.amount,
      counterparty: 'adjustments',
      referenceType: 'REVERSAL',
      referenceId: original.id,
      description: why.description,
      actor: why.actor,
      idempotencyKey: key,
    },
    walletEntries,
    { reversesId: original.id, counterpartyAccountId: counterparty.accountId },
  );
}

/**
 * Moves the remainder of every lapsed grant of the organisation's plan wallet out (one GRANT_EXPIRY debit per
 * grant, to the platform's `expired` account); the expiry sweep's work for one organisation. Returns how many.
 */
export async function expireLapsedGrants(
  tx: Queryable,
  organisationId: string,
  currency: string,
  at = new Date(),
): Promise<number> {
  const account = await lockWalletAccount(tx, organisationId, 'PLAN_WALLET', currency, WALLET_SCALE.PLAN_WALLET);
  const before = (await lapsedGrants(tx, account.id, at)).length;
  await expireLapsed(tx, organisationId, account, at);
  return before;
}

interface WalletEntry {
  amount: number;
  balanceAfter: number;
  grantId: string | null;
}

function simpleWalletEntries(
  account: WalletAccountRow,
  amount: number,
): { entries: WalletEntry[] } | { spendable: number } {
  const balanceAfter = account.balance + amount;
  if (balanceAfter < 0) return { spendable: account.balance };
  return { entries: [{ amount, balanceAfter, grantId: null }] };
}

/** A plan-wallet credit becomes one new grant; a debit is spread over the spendable grants, earliest-expiring first. */
async function planWalletEntries(
  tx: Queryable,
  account: WalletAccountRow,
  posting: Posting,
  at: Date,
): Promise<{ entries: WalletEntry[] } | { spendable: number }> {
  if (posting.amount > 0) {
    if (!posting.grant) throw new LedgerError('money put in a plan wallet is a grant: name its source and expiry');
    return { entries: [{ amount: posting.amount, balanceAfter: account.balance + posting.amount, grantId: null }] };
  }
  const grants = await spendableGrants(tx, account.id, at);
  const spendable = grants.reduce((sum, grant) => sum + grant.remaining, 0);
  if (spendable < -posting.amount) return { spendable };
  let owed = -posting.amount;
  let balance = account.balance;
  const entries: WalletEntry[] = [];
  for (const grant of grants) {
    if (owed === 0) break;
    const taken = Math.min(owed, grant.remaining);
    owed -= taken;
    balance -= taken;
    entries.push({ amount: -taken, balanceAfter: balance, grantId: grant.id });
  }
  return { entries };
}

async function expireLapsed(
  tx: Queryable,
  organisationId: string,
  account: WalletAccountRow,
  at: Date,
): Promise<number> {
  let balance = account.balance;
  for (const grant of await lapsedGrants(tx, account.id, at)) {
    balance -= grant.remaining;
    await write(
      tx,
      { ...account, balance: balance + grant.remaining },
      {
        organisationId,
        wallet: 'PLAN_WALLET',
        currency: account.currency,
        type: 'DEBIT',
        amount: -grant.remaining,
        counterparty: 'expired',
        referenceType: 'GRANT_EXPIRY',
        referenceId: grant.id,
        description: `${grant.source === 'TOP_UP' ? 'Top-up' : grant.source === 'PLAN_CYCLE' ? 'Plan allowance' : 'Sign-up credit'} expired on ${grant.expiresAt.toISOString().slice(0, 10)}`,
        actor: 'expiry',
        // Safe without a fixed key: under the account lock a grant's remainder is moved out once. A refund into a
        // grant that already lapsed gives it a remainder again, which a later expiry moves out in turn.
        idempotencyKey: `grant-expiry:${grant.id}:${newId()}`,
      },
      [{ amount: -grant.remaining, balanceAfter: balance, grantId: grant.id }],
      null,
    );
  }
  return balance;
}

async function write(
  tx: Queryable,
  account: WalletAccountRow,
  posting: Posting,
  walletEntries: WalletEntry[],
  reversal: { reversesId: string; counterpartyAccountId: string } | null,
): Promise<PostResult> {
  const id = newId();
  const platform = reversal ? null : platformAccount(posting.counterparty, account.currency, account.scale);
  const entries: NewEntry[] = [];
  for (const entry of walletEntries) {
    let grantId = entry.grantId;
    if (posting.grant && entry.amount > 0 && !grantId) {
      // Its transaction follows in the same database transaction (the foreign key is checked at commit).
      grantId = await insertGrant(tx, {
        organisationId: posting.organisationId,
        accountId: account.id,
        source: posting.grant.source,
        amount: entry.amount,
        expiresAt: posting.grant.expiresAt,
        transactionId: id,
      });
    } else if (grantId) {
      await moveGrantRemaining(tx, grantId, entry.amount);
    }
    entries.push({ accountId: account.id, amount: entry.amount, balanceAfter: entry.balanceAfter, grantId });
  }
  const moved = walletEntries.reduce((sum, entry) => sum + entry.amount, 0);
  entries.push({
    accountId: reversal?.counterpartyAccountId ?? platform!.id,
    amount: -moved,
    balanceAfter: null,
    grantId: null,
  });
  const balanceAfter = account.balance + moved;
  const createdAt = await insertPosting(tx, {
    transaction: {
      id,
      organisationId: posting.organisationId,
      type: posting.type,
      referenceType: posting.referenceType,
      referenceId: posting.referenceId ?? null,
      description: posting.description,
      actor: posting.actor,
      reversesId: reversal?.reversesId ?? null,
      idempotencyKey: posting.idempotencyKey,
    },
    entries,
    platform,
    wallet: { accountId: account.id, balance: balanceAfter, markPaid: posting.referenceType === 'TOP_UP' && moved > 0 },
  });
  return {
    status: 'posted',
    transaction: {
      id,
      type: posting.type,
      wallet: posting.wallet,
      referenceType: posting.referenceType,
      referenceId: posting.referenceId ?? null,
      description: posting.description,
      actor: posting.actor,
      reversesId: reversal?.reversesId ?? null,
      createdAt,
      amount: moved,
      balanceAfter,
      currency: account.currency,
      scale: account.scale,
    },
  };
}
