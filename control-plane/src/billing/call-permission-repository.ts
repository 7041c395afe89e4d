/** What deciding whether an organisation may place a call reads, in one query (call-permission.ts decides). */
import type { Queryable } from '../db/database.ts';
import type { BillingModel } from './billing-account-repository.ts';

export interface CallPermissionFacts {
  isActive: boolean;
  billingModel: BillingModel;
  isSuspended: boolean;
  suspendedReason: string | null;
  /** The pay-as-you-go wallet's balance in cents; null: no wallet yet. */
  walletBalanceMinor: number | null;
  walletCurrency: string | null;
  walletHasPaid: boolean;
  /** What the plan wallet can spend at `at` (grants not lapsed), minor units e4; null: no plan wallet. */
  planSpendableE4: number | null;
  planCurrency: string | null;
  hasUnpaidUsage: boolean;
}

export async function readCallPermissionFacts(
  sql: Queryable,
  organisationId: string,
  at: Date,
): Promise<CallPermissionFacts | undefined> {
  const [row] = await sql<
    {
      is_active: boolean;
      billing_model: BillingModel | null;
      is_suspended: boolean | null;
      suspended_reason: string | null;
      wallet_balance: string | null;
      wallet_currency: string | null;
      wallet_has_paid: boolean | null;
      plan_spendable: string | null;
      plan_currency: string | null;
      unpaid: boolean;
    }[]
  >`
    select o.is_active, b.billing_model, b.is_suspended, b.suspended_reason,
           w.balance as wallet_balance, w.currency as wallet_currency, w.has_paid as wallet_has_paid,
           (select coalesce(sum(g.remaining), 0) from wallet_grants g
             where g.account_id = p.id and g.remaining > 0 and g.expires_at > ${at}) as plan_spendable,
           p.currency as plan_currency,
           exists (select 1 from usage_records u
                    where u.organisation_id = o.id and not u.wallet_deducted and u.total_e4 > 0) as unpaid
      from organisations o
      left join billing_accounts b on b.organisation_id = o.id
      left join ledger_accounts w on w.organisation_id = o.id and w.kind = 'WALLET'
      -- The plan wallet of the currency the billing country pays in (countries.ts currencyOfCountry).
      left join ledger_accounts p on p.organisation_id = o.id and p.kind = 'PLAN_WALLET'
            and p.currency = case when upper(o.billing_country) = 'IN' then 'INR' else 'USD' end
     where o.id = ${organisationId} and o.deleted_at is null`;
  if (!row) return undefined;
  return {
    isActive: row.is_active,
    billingModel: row.billing_model ?? 'LEGACY_USD',
    isSuspended: row.is_suspended ?? false,
    suspendedReason: row.suspended_reason,
    walletBalanceMinor: row.wallet_balance === null ? null : Number(row.wallet_balance),
    walletCurrency: row.wallet_currency,
    walletHasPaid: row.wallet_has_paid ?? false,
    planSpendableE4: row.plan_currency === null ? null : Number(row.plan_spendable),
    planCurrency: row.plan_currency,
    hasUnpaidUsage: row.unpaid,
  };
}
