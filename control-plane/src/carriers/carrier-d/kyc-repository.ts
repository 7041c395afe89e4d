/**
 * The India KYC applications (india_kyc_applications) and the India numbers' renewal records (india_did_renewals),
 * migration 006: the only SQL for those tables. The rules they follow are india-kyc.ts's.
 */
import type { Queryable } from '../../db/database.ts';
import { newId } from '../../db/ids.ts';
import type { KycStep, PartnerApplication } from './api.ts';
import { stateOf, type KycApplication, type KycState } from './india-kyc.ts';

interface ApplicationRow {
  id: string;
  organisation_id: string;
  integration_id: string | null;
  provider_application_id: string;
  account_type: 'individual' | 'business';
  state: KycState;
  provider_status: string;
  status_source: 'step' | 'live_check';
  last_step: KycStep;
  aadhaar_verified: boolean;
  submitted_at: Date | null;
  decided_at: Date | null;
  rejection_reason: string | null;
  last_checked_at: Date;
  verification_unavailable: boolean;
  status_unrecognised: boolean;
}

export async function readApplication(
  sql: Queryable,
  organisationId: string,
  lock = false,
): Promise<KycApplication | undefined> {
  const [row] = await sql.unsafe<ApplicationRow[]>(
    `select * from india_kyc_applications where organisation_id = $1${lock ? ' for update' : ''}`,
    [organisationId],
  );
  return (
    row && {
      id: row.id,
      organisationId: row.organisation_id,
      integrationId: row.integration_id,
      providerApplicationId: row.provider_application_id,
      accountType: row.account_type,
      state: row.state,
      providerStatus: row.provider_status,
      statusSource: row.status_source,
      lastStep: row.last_step,
      aadhaarVerified: row.aadhaar_verified,
      submittedAt: row.submitted_at,
      decidedAt: row.decided_at,
      rejectionReason: row.rejection_reason,
      lastCheckedAt: row.last_checked_at,
      verificationUnavailable: row.verification_unavailable,
      statusUnrecognised: row.status_unrecognised,
    }
  );
}

export interface RecordStep {
  organisationId: string;
  integrationId: string;
  step: KycStep;
  partner: PartnerApplication;
  /** The register step: who accepted the partner's terms (the key's owner, through that key). */
  acceptedBy?: { userId: string; keyId: string };
  /** The account type the customer registered with, when the partner did not repeat it. */
  accountType?: 'individual' | 'business';
}

/** Records a step the partner accepted; the register step creates (or restarts) the application. */
export async function recordStep(sql: Queryable, input: RecordStep): Promise<KycApplication> {
  const p = input.partner;
  const state = stateOf(p.status);
  const lastStep = p.step ?? input.step;
  if (input.step === 'register') {
    const accepted = input.acceptedBy!;
    await sql`insert into india_kyc_applications (id, organisation_id, integration_id, provider_application_id, account_type, state,
        provider_status, status_source, last_step, aadhaar_verified, submitted_at, decided_at, rejection_reason, last_checked_at,
        verification_unavailable, status_unrecognised, terms_accepted_at, terms_accepted_by, terms_accepted_key_id)
      values (${newId()}, ${input.organisationId}, ${input.integrationId}, ${p.applicationId}, ${p.accountType ?? input.accountType!}, ${state},
        ${p.status}, 'step', ${lastStep}, ${p.aadhaarVerified}, ${p.submittedAt}, ${p.decidedAt}, ${p.rejectionReason}, now(),
        false, ${state === 'unknown'}, now(), ${accepted.userId}, ${accepted.keyId})
      on conflict (organisation_id) do update set integration_id = excluded.integration_id,
        provider_application_id = excluded.provider_application_id, account_type = excluded.account_type, state = excluded.state,
        provider_status = excluded.provider_status, status_source = 'step', last_step = excluded.last_step,
        aadhaar_verified = excluded.aadhaar_verified, submitted_at = excluded.submitted_at, decided_at = excluded.decided_at,
        rejection_reason = excluded.rejection_reason, last_checked_at = now(), verification_unavailable = false,
        status_unrecognised = excluded.status_unrecognised, terms_accepted_at = now(),
        terms_accepted_by = excluded.terms_accepted_by, terms_accepted_key_id = excluded.terms_accepted_key_id, updated_at = now()`;
  } else {
    await sql`update india_kyc_applications set state = ${state}, provider_status = ${p.status}, status_source = 'step',
        last_step = ${lastStep}, aadhaar_verified = ${p.aadhaarVerified}, submitted_at = ${p.submittedAt}, decided_at = ${p.decidedAt},
        rejection_reason = ${p.rejectionReason}, last_checked_at = now(), verification_unavailable = false,
        status_unrecognised = ${state === 'unknown'}, integration_id = ${input.integrationId}, updated_at = now()
      where organisation_id = ${input.organisationId}`;
  }
  return (await readApplication(sql, input.organisationId))!;
}

/** Records the partner's live status (the check before a purchase). */
export async function recordLiveStatus(
  sql: Queryable,
  organisationId: string,
  p: PartnerApplication,
): Promise<KycApplication> {
  const state = stateOf(p.status);
  await sql`update india_kyc_applications set state = ${state}, provider_status = ${p.status}, status_source = 'live_check',
      last_step = coalesce(${p.step}, last_step), aadhaar_verified = ${p.aadhaarVerified}, submitted_at = ${p.submittedAt},
      decided_at = ${p.decidedAt}, rejection_reason = ${p.rejectionReason}, last_checked_at = now(), verification_unavailable = false,
      status_unrecognised = ${state === 'unknown'}, updated_at = now()
    where organisation_id = ${organisationId}`;
  return (await readApplication(sql, organisationId))!;
}

/** The live check could not reach the partner: the stored state stands, marked unverified. */
export async function markVerificationUnavailable(sql: Queryable, organisationId: string): Promise<void> {
  await sql`update india_kyc_applications set verification_unavailable = true, updated_at = now() where organisation_id = ${organisationId}`;
}

/** An India number's renewal record (india_did_renewals). */
export interface DidRenewalRecord {
  id: string;
  phoneNumberId: string;
  providerDidId: string;
  providerOrderId: string;
  botId: string;
  months: number;
  expiresAt: Date | null;
}

export async function saveRenewalRecord(
  sql: Queryable,
  input: {
    organisationId: string;
    phoneNumberId: string;
    integrationId: string;
    providerDidId: string;
    providerOrderId: string;
    botId: string;
    months: number;
    expiresAt: Date | null;
  },
): Promise<void> {
  await sql`update india_did_renewals set is_active = false, updated_at = now() where phone_number_id = ${input.phoneNumberId} and is_active`;
  await sql`insert into india_did_renewals (id, organisation_id, phone_number_id, integration_id, provider_did_id, provider_order_id, bot_id, months, expires_at)
    values (${newId()}, ${input.organisationId}, ${input.phoneNumberId}, ${input.integrationId}, ${input.providerDidId},
            ${input.providerOrderId}, ${input.botId}, ${input.months}, ${input.expiresAt})`;
}

export async function activeRenewalRecord(
  sql: Queryable,
  organisationId: string,
  phoneNumberId: string,
): Promise<DidRenewalRecord | undefined> {
  const [row] = await sql<
    {
      id: string;
      phone_number_id: string;
      provider_did_id: string;
      provider_order_id: string;
      bot_id: string;
      months: number;
      expires_at: Date | null;
    }[]
  >`
    select id, phone_number_id, provider_did_id, provider_order_id, bot_id, months, expires_at from india_did_renewals
     where organisation_id = ${organisationId} and phone_number_id = ${phoneNumberId} and is_active`;
  return (
    row && {
      id: row.id,
      phoneNumberId: row.phone_number_id,
      providerDidId: row.provider_did_id,
      providerOrderId: row.provider_order_id,
      botId: row.bot_id,
      months: row.months,
      expiresAt: row.expires_at,
    }
  );
}

export async function recordRenewal(
  sql: Queryable,
  id: string,
  renewal: { purchaseId: string; renewedAt: Date; expiresAt: Date | null },
): Promise<void> {
  await sql`update india_did_renewals set last_renewed_at = ${renewal.renewedAt}, last_purchase_id = ${renewal.purchaseId},
      expires_at = coalesce(${renewal.expiresAt}, expires_at), updated_at = now() where id = ${id}`;
}
