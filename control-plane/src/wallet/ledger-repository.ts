/**
 * The ledger's tables (migration 010): accounts, transactions, entries and plan-wallet grants. The only SQL for
 * them; the rules of posting live in ledger.ts.
 */
import { createHash } from 'node:crypto';
import type { Queryable } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import type {
  GrantSource,
  LedgerTransaction,
  PlatformAccountName,
  TransactionType,
  WalletKind,
} from './ledger-types.ts';

export interface WalletAccountRow {
  id: string;
  currency: string;
  scale: number;
  balance: number;
  hasPaid: boolean;
}

interface AccountColumns {
  id: string;
  currency: string;
  scale: number;
  balance: string;
  has_paid: boolean;
}

const toAccount = (row: AccountColumns): WalletAccountRow => ({
  id: row.id,
  currency: row.currency,
  scale: row.scale,
  balance: Number(row.balance),
  hasPaid: row.has_paid,
});

/**
 * The organisation's wallet of `kind`. A plan wallet is per currency: named by `currency`, or else the one last
 * moved (the organisation's current one).
 */
export async function readWalletAccount(
  sql: Queryable,
  organisationId: string,
  kind: WalletKind,
  currency?: string,
): Promise<WalletAccountRow | undefined> {
  const [row] = await sql<AccountColumns[]>`
    select id, currency, scale, balance, has_paid from ledger_accounts
     where organisation_id = ${organisationId} and kind = ${kind}
       ${currency ? sql`and currency = ${currency}` : sql``}
     order by updated_at desc limit 1`;
  return row && toAccount(row);
}

/**
 * The organisation's wallet of `kind`, opened in `currency` when it has none, and locked for the rest of the
 * caller's transaction: postings to one wallet happen one after another, so a balance read here stays true.
 */
export async function lockWalletAccount(
  tx: Queryable,
  organisationId: string,
  kind: WalletKind,
  currency: string,
  scale: number,
): Promise<WalletAccountRow> {
  // The pay-as-you-go wallet is one (a posting in another currency is refused by the caller); plan wallets are per currency.
  const lock = () => tx<AccountColumns[]>`
    select id, currency, scale, balance, has_paid from ledger_accounts
     where organisation_id = ${organisationId} and kind = ${kind} and (kind = 'WALLET' or currency = ${currency})
       for update`;
  // Almost every posting finds its wallet: one round trip. A first posting opens it (a concurrent first posting's
  // insert does nothing) and locks it then.
  const [found] = await lock();
  if (found) return toAccount(found);
  await tx`insert into ledger_accounts (id, organisation_id, kind, name, currency, scale)
           values (${newId()}, ${organisationId}, ${kind}, ${kind === 'WALLET' ? 'wallet' : 'plan wallet'}, ${currency}, ${scale})
           on conflict do nothing`;
  const [row] = await lock();
  return toAccount(row!);
}

/** A platform account: the platform's side of postings, one per name, currency and scale. */
export interface PlatformAccount {
  id: string;
  name: PlatformAccountName;
  currency: string;
  scale: number;
}

/** The platform account of that name, currency and scale; its id is derived from them, so it is never looked up. */
export function platformAccount(name: PlatformAccountName, currency: string, scale: number): PlatformAccount {
  const id = createHash('md5')
    .update(`platform.${name}.${currency}${scale === 1 ? '' : `.e${Math.log10(scale)}`}`)
    .digest('hex')
    .slice(0, 24);
  return { id, name, currency, scale };
}

interface TransactionColumns {
  id: string;
  type: TransactionType;
  reference_type: string;
  reference_id: string | null;
  description: string;
  actor: string;
  reverses_id: string | null;
  created_at: Date;
  amount: string;
  balance_after: string;
  currency: string;
  scale: number;
  kind: WalletKind;
}

const toTransaction = (row: TransactionColumns): LedgerTransaction => ({
  id: row.id,
  type: row.type,
  wallet: row.kind,
  referenceType: row.reference_type,
  referenceId: row.reference_id,
  description: row.description,
  actor: row.actor,
  reversesId: row.reverses_id,
  createdAt: row.created_at,
  amount: Number(row.amount),
  balanceAfter: Number(row.balance_after),
  currency: row.currency,
  scale: row.scale,
});

/**
 * Transactions as their wallet sees them: the sum of the wallet's entries and its balance after the last one. The
 * platform's entries are not shown.
 */
const TRANSACTION_VIEW = (sql: Queryable) => sql`
  select t.id, t.type, t.reference_type, t.reference_id, t.description, t.actor, t.reverses_id, t.created_at,
         w.amount, w.balance_after, a.currency, a.scale, a.kind
    from ledger_transactions t
    cross join lateral (
      -- A transaction's wallet entries all move one way, so the last balance is the lowest (debits) or highest.
      select sum(e.amount) as amount,
             case when sum(e.amount) < 0 then min(e.balance_after) else max(e.balance_after) end as balance_after,
             min(e.account_id) as account_id
        from ledger_entries e where e.transaction_id = t.id and e.balance_after is not null) w
    join ledger_accounts a on a.id = w.account_id`;

export async function findTransactionByKey(
  tx: Queryable,
  idempotencyKey: string,
): Promise<LedgerTransaction | undefined> {
  // The common case is a first posting: an index probe answers it without building the wallet's view.
  const [posted] = await tx<
    { id: string }[]
  >`select id from ledger_transactions where idempotency_key = ${idempotencyKey}`;
  if (!posted) return undefined;
  const [row] = await tx<TransactionColumns[]>`${TRANSACTION_VIEW(tx)} where t.id = ${posted.id}`;
  return row && toTransaction(row);
}

export async function findTransaction(
  tx: Queryable,
  organisationId: string,
  id: string,
): Promise<LedgerTransaction | undefined> {
  const [row] = await tx<TransactionColumns[]>`
    ${TRANSACTION_VIEW(tx)} where t.id = ${id} and t.organisation_id = ${organisationId}`;
  return row && toTransaction(row);
}

export interface TransactionFilter {
  organisationId: string;
  /** One wallet's transactions; both wallets' when left out (the wallet history shows plan-wallet lines too). */
  wallet?: WalletKind;
  type?: TransactionType;
  from?: Date;
  to?: Date;
  limit: number;
  offset: number;
}

/** One page of a wallet's transactions, newest first, and how many match in all. */
export async function listTransactions(
  sql: Queryable,
  filter: TransactionFilter,
): Promise<{ transactions: LedgerTransaction[]; total: number }> {
  const where = sql`t.organisation_id = ${filter.organisationId}
    ${filter.wallet ? sql`and a.kind = ${filter.wallet}` : sql``}
    ${filter.type ? sql`and t.type = ${filter.type}` : sql``}
    ${filter.from ? sql`and t.created_at >= ${filter.from}` : sql``}
    ${filter.to ? sql`and t.created_at <= ${filter.to}` : sql``}`;
  const rows = await sql<TransactionColumns[]>`
    ${TRANSACTION_VIEW(sql)} where ${where} order by t.created_at desc, t.id desc
    limit ${filter.limit} offset ${filter.offset}`;
  const [count] = await sql<{ total: number }[]>`
    select count(*)::int as total from (${TRANSACTION_VIEW(sql)} where ${where}) matching`;
  return { transactions: rows.map(toTransaction), total: count!.total };
}

export interface NewTransaction {
  organisationId: string;
  type: TransactionType;
  referenceType: string;
  referenceId: string | null;
  description: string;
  actor: string;
  reversesId: string | null;
  idempotencyKey: string;
}

export interface NewEntry {
  accountId: string;
  amount: number;
  balanceAfter: number | null;
  grantId: string | null;
}

export interface NewPosting {
  transaction: NewTransaction & { id: string };
  entries: NewEntry[];
  /** The platform account on the other side, opened if this is its first posting; null when it surely exists. */
  platform: PlatformAccount | null;
  wallet: { accountId: string; balance: number; markPaid: boolean };
}

/**
 * Writes a posting — its transaction, its entries, the platform account if new, the wallet's new balance — in one
 * statement: a debit is the hot path of metering, and every round trip is time a call's end holds its locks. The
 * foreign keys between them are checked at the end of the statement; the balance of the entries at commit.
 */
export async function insertPosting(tx: Queryable, posting: NewPosting): Promise<Date> {
  const t = posting.transaction;
  const platform = posting.platform;
  const rows = posting.entries.map((entry) => ({
    id: newId(),
    transaction_id: t.id,
    account_id: entry.accountId,
    amount: entry.amount,
    balance_after: entry.balanceAfter,
    grant_id: entry.grantId,
  }));
  // created_at is clock_timestamp(), not now(): now() is the database transaction's start, so every posting of one
  // transaction (a top-up and the usage it settles) would share it and the history could not show their order.
  const written = await tx`
    with platform as (
      ${
        platform
          ? tx`insert into ledger_accounts (id, organisation_id, kind, name, currency, scale)
               values (${platform.id}, null, 'PLATFORM', ${platform.name}, ${platform.currency}, ${platform.scale})
               on conflict do nothing`
          : tx`select 1`
      }
    ), posted as (
      insert into ledger_transactions (id, organisation_id, type, reference_type, reference_id, description, actor,
                                       reverses_id, idempotency_key, created_at)
      values (${t.id}, ${t.organisationId}, ${t.type}, ${t.referenceType}, ${t.referenceId}, ${t.description},
              ${t.actor}, ${t.reversesId}, ${t.idempotencyKey}, clock_timestamp())
      returning created_at
    ), entries as (
      insert into ledger_entries ${tx(rows, 'id', 'transaction_id', 'account_id', 'amount', 'balance_after', 'grant_id')}
    ), wallet as (
      update ledger_accounts set balance = ${posting.wallet.balance}, updated_at = now(),
             has_paid = has_paid or ${posting.wallet.markPaid}
       where id = ${posting.wallet.accountId}
    )
    select created_at from posted`;
  return (written[0] as { created_at: Date }).created_at;
}

/** The entries of one transaction (a reversal negates them). */
export async function readEntries(
  tx: Queryable,
  transactionId: string,
): Promise<{ accountId: string; amount: number; wallet: boolean; grantId: string | null }[]> {
  const rows = await tx<
    { account_id: string; amount: string; balance_after: string | null; grant_id: string | null }[]
  >`
    select account_id, amount, balance_after, grant_id from ledger_entries where transaction_id = ${transactionId} order by id`;
  return rows.map((row) => ({
    accountId: row.account_id,
    amount: Number(row.amount),
    wallet: row.balance_after !== null,
    grantId: row.grant_id,
  }));
}

export interface GrantRow {
  id: string;
  source: GrantSource;
  amount: number;
  remaining: number;
  expiresAt: Date;
}

interface GrantColumns {
  id: string;
  source: GrantSource;
  amount: string;
  remaining: string;
  expires_at: Date;
}

const toGrant = (row: GrantColumns): GrantRow => ({
  id: row.id,
  source: row.source,
  amount: Number(row.amount),
  remaining: Number(row.remaining),
  expiresAt: row.expires_at,
});

/** Grants with money left that are still spendable at `at`, earliest-expiring first (the order they are spent in). */
export async function spendableGrants(tx: Queryable, accountId: string, at: Date): Promise<GrantRow[]> {
  const rows = await tx<GrantColumns[]>`
    select id, source, amount, remaining, expires_at from wallet_grants
     where account_id = ${accountId} and remaining > 0 and expires_at > ${at}
     order by expires_at, id`;
  return rows.map(toGrant);
}

/** Grants with money left whose time ran out by `at`: the expiry posting moves their remainder out of the wallet. */
export async function lapsedGrants(tx: Queryable, accountId: string, at: Date): Promise<GrantRow[]> {
  const rows = await tx<GrantColumns[]>`
    select id, source, amount, remaining, expires_at from wallet_grants
     where account_id = ${accountId} and remaining > 0 and expires_at <= ${at}
     order by expires_at, id`;
  return rows.map(toGrant);
}

export async function listGrants(sql: Queryable, accountId: string): Promise<GrantRow[]> {
  const rows = await sql<GrantColumns[]>`
    select id, source, amount, remaining, expires_at from wallet_grants
     where account_id = ${accountId} and remaining > 0 order by expires_at, id`;
  return rows.map(toGrant);
}

export async function insertGrant(
  tx: Queryable,
  grant: {
    organisationId: string;
    accountId: string;
    source: GrantSource;
    amount: number;
    expiresAt: Date;
    transactionId: string;
  },
): Promise<string> {
  const id = newId();
  await tx`insert into wallet_grants (id, organisation_id, account_id, source, amount, remaining, expires_at, transaction_id)
           values (${id}, ${grant.organisationId}, ${grant.accountId}, ${grant.source}, ${grant.amount}, ${grant.amount},
                   ${grant.expiresAt}, ${grant.transactionId})`;
  return id;
}

export async function moveGrantRemaining(tx: Queryable, grantId: string, delta: number): Promise<void> {
  await tx`update wallet_grants set remaining = remaining + ${delta} where id = ${grantId}`;
}

/** Every wallet's stored balance beside the sum of its entries: the invariant the tests and the bench check. */
export async function walletReplay(
  sql: Queryable,
  organisationIds?: string[],
): Promise<{ accountId: string; organisationId: string; stored: number; replayed: number; grants: number | null }[]> {
  const rows = await sql<
    { id: string; organisation_id: string; balance: string; replayed: string; grants: string | null; kind: string }[]
  >`
    select a.id, a.organisation_id, a.balance, a.kind,
           coalesce((select sum(e.amount) from ledger_entries e where e.account_id = a.id), 0) as replayed,
           (select sum(g.remaining) from wallet_grants g where g.account_id = a.id) as grants
      from ledger_accounts a
     where a.kind <> 'PLATFORM' ${organisationIds ? sql`and a.organisation_id in ${sql(organisationIds)}` : sql``}`;
  return rows.map((row) => ({
    accountId: row.id,
    organisationId: row.organisation_id,
    stored: Number(row.balance),
    replayed: Number(row.replayed),
    grants: row.kind === 'PLAN_WALLET' ? Number(row.grants ?? 0) : null,
  }));
}

/** Transactions whose entries do not sum to zero (the deferred trigger refuses them; this proves it held). */
export async function unbalancedTransactions(sql: Queryable): Promise<string[]> {
  const rows = await sql<{ transaction_id: string }[]>`
    select transaction_id from ledger_entries group by transaction_id having sum(amount) <> 0`;
  return rows.map((row) => row.transaction_id);
}
