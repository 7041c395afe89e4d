/** Top-up quotes (migration 010 `topup_quotes`): stored when issued, used at most once. The only SQL for them. */
import type { Queryable } from '../db/database.ts';

export interface QuoteRow {
  id: string;
  organisationId: string;
  billingCountry: string;
  /** Minor units of walletCurrency (the checkout currency the payer named the credit in). */
  walletCreditMinor: number;
  walletCurrency: string;
  walletCreditUsdMinor: number;
  totalMinor: number;
  chargeCurrency: string;
  expiresAt: Date;
  usedAt: Date | null;
}

export async function insertQuote(
  sql: Queryable,
  quote: Omit<QuoteRow, 'usedAt'>,
  body: Record<string, unknown>,
): Promise<void> {
  await sql`
    insert into topup_quotes (id, organisation_id, billing_country, wallet_credit_minor, wallet_currency,
                              wallet_credit_usd_minor, total_minor, charge_currency, body, expires_at)
    values (${quote.id}, ${quote.organisationId}, ${quote.billingCountry}, ${quote.walletCreditMinor},
            ${quote.walletCurrency}, ${quote.walletCreditUsdMinor}, ${quote.totalMinor}, ${quote.chargeCurrency},
            ${sql.json(body as never)}, ${quote.expiresAt})`;
}

export async function findQuote(sql: Queryable, organisationId: string, id: string): Promise<QuoteRow | undefined> {
  const [row] = await sql<
    {
      id: string;
      organisation_id: string;
      billing_country: string;
      wallet_credit_minor: string;
      wallet_currency: string;
      wallet_credit_usd_minor: string;
      total_minor: string;
      charge_currency: string;
      expires_at: Date;
      used_at: Date | null;
    }[]
  >`
    select id, organisation_id, billing_country, wallet_credit_minor, wallet_currency, wallet_credit_usd_minor,
           total_minor, charge_currency, expires_at, used_at
      from topup_quotes where id = ${id} and organisation_id = ${organisationId}`;
  return (
    row && {
      id: row.id,
      organisationId: row.organisation_id,
      billingCountry: row.billing_country,
      walletCreditMinor: Number(row.wallet_credit_minor),
      walletCurrency: row.wallet_currency,
      walletCreditUsdMinor: Number(row.wallet_credit_usd_minor),
      totalMinor: Number(row.total_minor),
      chargeCurrency: row.charge_currency,
      expiresAt: row.expires_at,
      usedAt: row.used_at,
    }
  );
}

/**
 * Marks the quote used, atomically: of any number of concurrent callers exactly one gets true, and the row stays
 * locked until the caller's transaction ends (a rolled-back use leaves the quote usable).
 */
export async function claimQuote(tx: Queryable, id: string): Promise<boolean> {
  const rows = await tx`update topup_quotes set used_at = now() where id = ${id} and used_at is null returning id`;
  return rows.length === 1;
}
