/** What the payment services read of an organisation, its user and its plan (migrations 001, 010). The only SQL for them here. */
import type { BillingModel } from '../billing/billing-account-repository.ts';
import type { Queryable } from '../db/database.ts';

export interface OrganisationBilling {
  id: string;
  name: string;
  billingCountry: string | null;
  /** No billing_accounts row yet means pay-as-you-go, the default of migration 010. */
  billingModel: BillingModel;
  mobile: string | null;
  invoice: {
    companyName: string | null;
    addressLine1: string | null;
    city: string | null;
    state: string | null;
    postalCode: string | null;
    gstin: string | null;
  };
}

export async function readOrganisationBilling(
  sql: Queryable,
  organisationId: string,
): Promise<OrganisationBilling | undefined> {
  const [row] = await sql<
    {
      id: string;
      name: string;
      billing_country: string | null;
      billing_model: BillingModel;
      mobile: string | null;
      company_name: string | null;
      address_line1: string | null;
      city: string | null;
      state: string | null;
      postal_code: string | null;
      gstin: string | null;
    }[]
  >`
    select o.id, o.name, o.billing_country, coalesce(b.billing_model, 'LEGACY_USD') as billing_model, o.mobile,
           o.company_name, o.address_line1, o.city, o.state, o.postal_code, o.gstin
      from organisations o left join billing_accounts b on b.organisation_id = o.id
     where o.id = ${organisationId} and o.deleted_at is null`;
  return (
    row && {
      id: row.id,
      name: row.name,
      billingCountry: row.billing_country?.toUpperCase() ?? null,
      billingModel: row.billing_model,
      mobile: row.mobile,
      invoice: {
        companyName: row.company_name,
        addressLine1: row.address_line1,
        city: row.city,
        state: row.state,
        postalCode: row.postal_code,
        gstin: row.gstin,
      },
    }
  );
}

export async function readPayer(sql: Queryable, userId: string): Promise<{ name: string; email: string } | undefined> {
  const [row] = await sql<{ name: string; email: string }[]>`
    select name, email from users where id = ${userId} and deleted_at is null`;
  return row;
}

export interface TopUpPlan {
  planId: string;
  code: string;
  currency: string;
  rail: string;
  /** Minor units of the plan's currency, smallest first. */
  topUpPresets: number[];
}

/**
 * The plan whose top-up presets apply: the organisation's live subscription's, else the active STARTER plan in
 * `currency` (an organisation on plan billing that has not subscribed yet may still top up).
 */
export async function topUpPlanOf(
  sql: Queryable,
  organisationId: string,
  currency: string,
): Promise<TopUpPlan | undefined> {
  type Row = { id: string; code: string; currency: string; rail: string; top_up_presets: (string | number)[] };
  const [subscribed] = await sql<Row[]>`
    select p.id, p.code, p.currency, p.rail, p.top_up_presets
      from billing_subscriptions s join billing_plans p on p.id = s.plan_id
     where s.organisation_id = ${organisationId} and s.status <> 'CANCELLED'
     limit 1`;
  const [row] = subscribed
    ? [subscribed]
    : await sql<Row[]>`
        select id, code, currency, rail, top_up_presets from billing_plans
         where tier = 'STARTER' and currency = ${currency} and is_active
         order by code limit 1`;
  return (
    row && {
      planId: row.id,
      code: row.code,
      currency: row.currency,
      rail: row.rail,
      topUpPresets: row.top_up_presets.map(Number).sort((a, b) => a - b),
    }
  );
}
