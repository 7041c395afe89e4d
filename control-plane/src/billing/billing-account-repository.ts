/**
 * An organisation's billing as stored: the billing identity on the organisations row and the billing account
 * (migration 010, billing_accounts; an organisation without a row is on the defaults: pay-as-you-go, not suspended).
 * The only SQL for them.
 */
import type { OrganisationRecord } from '../accounts/records.ts';
import type { Queryable } from '../db/database.ts';

/** LEGACY_USD: pay-as-you-go USD wallet. WALLET: plan billing (a plan wallet of grants in the country's currency). */
export type BillingModel = 'LEGACY_USD' | 'WALLET';

export interface BillingProfile {
  organisationId: string;
  isActive: boolean;
  billingCountry: string | null;
  billingModel: BillingModel;
  isSuspended: boolean;
  suspendedReason: string | null;
  /** Per-organisation pay-as-you-go prices, US cents e4; null: the rate card's. */
  ratePerMinuteE4: number | null;
  ratePerMessageE4: number | null;
  lowBalanceThresholdMinor: number | null;
  signupCreditAt: Date | null;
}

interface ProfileColumns {
  id: string;
  is_active: boolean;
  billing_country: string | null;
  billing_model: BillingModel | null;
  is_suspended: boolean | null;
  suspended_reason: string | null;
  rate_per_minute_e4: string | null;
  rate_per_message_e4: string | null;
  low_balance_threshold_minor: string | null;
  signup_credit_at: Date | null;
}

const nullableNumber = (value: string | null): number | null => (value === null ? null : Number(value));

const toProfile = (row: ProfileColumns): BillingProfile => ({
  organisationId: row.id,
  isActive: row.is_active,
  billingCountry: row.billing_country?.toUpperCase() ?? null,
  billingModel: row.billing_model ?? 'LEGACY_USD',
  isSuspended: row.is_suspended ?? false,
  suspendedReason: row.suspended_reason,
  ratePerMinuteE4: nullableNumber(row.rate_per_minute_e4),
  ratePerMessageE4: nullableNumber(row.rate_per_message_e4),
  lowBalanceThresholdMinor: nullableNumber(row.low_balance_threshold_minor),
  signupCreditAt: row.signup_credit_at,
});

/** The organisation's billing profile; undefined when the organisation does not exist or was deleted. */
export async function readBillingProfile(sql: Queryable, organisationId: string): Promise<BillingProfile | undefined> {
  const [row] = await sql<ProfileColumns[]>`
    select o.id, o.is_active, o.billing_country, b.billing_model, b.is_suspended, b.suspended_reason,
           b.rate_per_minute_e4, b.rate_per_message_e4, b.low_balance_threshold_minor, b.signup_credit_at
      from organisations o left join billing_accounts b on b.organisation_id = o.id
     where o.id = ${organisationId} and o.deleted_at is null`;
  return row && toProfile(row);
}

/**
 * The billing profile, its billing account opened when missing and locked for the rest of the caller's
 * transaction: changes of the billing country, the
 * sign-up credit, the model and the plan of one organisation happen one at a time.
 */
export async function lockBillingProfile(tx: Queryable, organisationId: string): Promise<BillingProfile | undefined> {
  await tx`insert into billing_accounts (organisation_id)
           select id from organisations where id = ${organisationId} and deleted_at is null
           on conflict do nothing`;
  const [row] = await tx<ProfileColumns[]>`
    select o.id, o.is_active, o.billing_country, b.billing_model, b.is_suspended, b.suspended_reason,
           b.rate_per_minute_e4, b.rate_per_message_e4, b.low_balance_threshold_minor, b.signup_credit_at
      from organisations o join billing_accounts b on b.organisation_id = o.id
     where o.id = ${organisationId} and o.deleted_at is null
       for update of b`;
  return row && toProfile(row);
}

export async function setBillingModel(tx: Queryable, organisationId: string, model: BillingModel): Promise<void> {
  await tx`update billing_accounts set billing_model = ${model}, updated_at = now() where organisation_id = ${organisationId}`;
}

/** Suspends calling with `reason`, or resumes it with null. */
export async function setSuspension(tx: Queryable, organisationId: string, reason: string | null): Promise<void> {
  await tx`update billing_accounts set is_suspended = ${reason !== null}, suspended_reason = ${reason}, updated_at = now()
           where organisation_id = ${organisationId}`;
}

export async function setBillingCountry(tx: Queryable, organisationId: string, country: string): Promise<void> {
  await tx`update organisations set billing_country = ${country}, updated_at = now() where id = ${organisationId}`;
}

export async function markSignupCredit(tx: Queryable, organisationId: string, at: Date): Promise<void> {
  await tx`update billing_accounts set signup_credit_at = ${at}, updated_at = now()
            where organisation_id = ${organisationId}`;
}

/** Spec document 2, GET /billing/details: the billing identity. */
export type BillingDetails = Pick<
  OrganisationRecord,
  | 'billingCountry'
  | 'companyName'
  | 'companyRegistrationNumber'
  | 'addressLine1'
  | 'addressLine2'
  | 'city'
  | 'state'
  | 'postalCode'
  | 'gstin'
  | 'mobile'
>;

export async function readBillingDetails(sql: Queryable, organisationId: string): Promise<BillingDetails | undefined> {
  const [row] = await sql<Record<string, string | null>[]>`
    select billing_country, company_name, company_registration_number, address_line1, address_line2, city, state,
           postal_code, gstin, mobile
      from organisations where id = ${organisationId} and deleted_at is null`;
  return (
    row && {
      billingCountry: row.billing_country?.toUpperCase() ?? null,
      companyName: row.company_name ?? null,
      companyRegistrationNumber: row.company_registration_number ?? null,
      addressLine1: row.address_line1 ?? null,
      addressLine2: row.address_line2 ?? null,
      city: row.city ?? null,
      state: row.state ?? null,
      postalCode: row.postal_code ?? null,
      gstin: row.gstin ?? null,
      mobile: row.mobile ?? null,
    }
  );
}

/**
 * Spec document 1, Top-up payment: pending pay-as-you-go checkouts expire when the billing country changes (their
 * price was for the old country). Returns how many were expired.
 */
export async function expirePendingWalletTopups(tx: Queryable, organisationId: string): Promise<number> {
  const rows = await tx`update payments set status = 'EXPIRED', updated_at = now()
                         where organisation_id = ${organisationId} and kind = 'WALLET_TOPUP' and status = 'PENDING'
                         returning id`;
  return rows.length;
}
