/**
 * The India KYC application (spec document 1) of an organisation, kept in india_kyc_applications (migration 006):
 * what each wizard step's payload must hold (spec document 2), how the partner's status word reads in Parley's
 * terms, and the next action the customer takes, computed from the state on every read.
 *
 * States: in_progress (the wizard is under way; the spec shows this one), pending_review (final submitted, the
 * partner reviews), approved (numbers may be bought), rejected (the partner's reason is kept; the wizard starts
 * again from register), unknown (a status word Parley does not know: statusUnrecognised).
 */
import type { Queryable } from '../../db/database.ts';
import { newId } from '../../db/ids.ts';
import { badField } from '../../errors.ts';
import { KYC_STEPS, type KycStep, type PartnerApplication } from './api.ts';

export { KYC_STEPS, type KycStep };

export const KYC_STATES = ['in_progress', 'pending_review', 'approved', 'rejected', 'unknown'] as const;
export type KycState = (typeof KYC_STATES)[number];

const PROVIDER_STATES: Readonly<Record<string, KycState>> = {
  in_progress: 'in_progress',
  under_review: 'pending_review',
  approved: 'approved',
  rejected: 'rejected',
};

/** Parley's state for the partner's status word. */
export function stateOf(providerStatus: string): KycState {
  return PROVIDER_STATES[providerStatus.toLowerCase()] ?? 'unknown';
}

export interface NextAction {
  code: string;
  message: string;
}

/** What the customer does next, from the application's state (undefined: no application yet). */
export function nextActionOf(
  app: Pick<KycApplication, 'state' | 'lastStep' | 'accountType' | 'aadhaarVerified' | 'rejectionReason'> | undefined,
): NextAction {
  if (!app)
    return {
      code: 'register',
      message: "Submit the register step (the customer must have agreed to the partner's terms)",
    };
  switch (app.state) {
    case 'approved':
      return { code: 'purchase', message: 'KYC is approved: India numbers can be bought' };
    case 'pending_review':
      return {
        code: 'await_review',
        message: 'The application is under review by the partner; nothing to do until it is decided',
      };
    case 'rejected':
      return {
        code: 'register',
        message: `The application was rejected${app.rejectionReason ? `: ${app.rejectionReason}` : ''}. Correct the details and start again from register`,
      };
    case 'unknown':
      return {
        code: 'contact_support',
        message: 'The partner reported a status Parley does not recognise; contact support',
      };
    case 'in_progress':
      break;
  }
  const afterAadhaar = app.accountType === 'business' ? 'gst' : 'final';
  switch (app.lastStep) {
    case 'register':
      return { code: 'pan', message: 'Submit the pan step: pan_holder_name and pan_number' };
    case 'pan':
      return { code: 'aadhaar', message: 'Submit the aadhaar step, then open aadhaarVerificationUrl in a browser' };
    case 'aadhaar':
      return app.aadhaarVerified
        ? {
            code: afterAadhaar,
            message: afterAadhaar === 'gst' ? 'Submit the gst step: gst_number' : 'Submit the final step',
          }
        : {
            code: 'verify_aadhaar',
            message: `Open aadhaarVerificationUrl in a browser and complete the verification, then submit the ${afterAadhaar} step`,
          };
    case 'gst':
      return { code: 'final', message: 'Submit the final step' };
    case 'final':
      return { code: 'await_review', message: 'The application is under review by the partner' };
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9]{10,15}$/;
const PAN = /^[A-Z]{5}[0-9]{4}[A-Z]$/;
const GST = /^[0-9A-Z]{15}$/;
const FIELD_MAX = 500;

/**
 * The step's payload as sent to the partner: only the fields of the step (spec document 2), each checked; 400
 * naming `payload.<field>` otherwise. Strings are trimmed; PAN and GST numbers upper-cased.
 */
export function stepPayload(step: KycStep, payload: Record<string, unknown>): Record<string, unknown> {
  const str = (name: string, rule?: RegExp, hint?: string): string => {
    const value = payload[name];
    if (typeof value !== 'string' || !value.trim()) throw badField(`payload.${name}`, 'is required');
    const trimmed = value.trim();
    if (trimmed.length > FIELD_MAX) throw badField(`payload.${name}`, `must be at most ${FIELD_MAX} characters`);
    if (rule && !rule.test(trimmed)) throw badField(`payload.${name}`, hint ?? 'is not valid');
    return trimmed;
  };
  switch (step) {
    case 'register': {
      const accountType = payload.account_type;
      if (accountType !== 'individual' && accountType !== 'business')
        throw badField('payload.account_type', 'must be individual or business');
      if (payload.term_and_condition !== true) {
        throw badField(
          'payload.term_and_condition',
          "must be true: send the register step only after the customer agreed to the partner's terms",
        );
      }
      return {
        account_type: accountType,
        full_name: str('full_name'),
        email: str('email', EMAIL, 'must be an email address'),
        phone: str('phone', PHONE, 'must be 10 to 15 digits, optionally with a leading +'),
        billing_address: str('billing_address'),
        term_and_condition: true,
        ...(accountType === 'business' ? { business_name: str('business_name') } : {}),
      };
    }
    case 'pan':
      return {
        pan_holder_name: str('pan_holder_name'),
        pan_number: (() => {
          const value = payload.pan_number;
          if (typeof value !== 'string' || !PAN.test(value.trim().toUpperCase()))
            throw badField('payload.pan_number', 'must be a PAN: 5 letters, 4 digits, 1 letter');
          return value.trim().toUpperCase();
        })(),
      };
    case 'aadhaar': {
      const redirect = payload.redirect_url;
      if (redirect === undefined) return {};
      if (typeof redirect !== 'string' || !/^https?:\/\/[^\s/]+/i.test(redirect))
        throw badField('payload.redirect_url', 'must be an http(s) URL');
      return { redirect_url: redirect };
    }
    case 'gst': {
      const value = payload.gst_number;
      if (typeof value !== 'string' || !GST.test(value.trim().toUpperCase()))
        throw badField('payload.gst_number', 'must be 15 letters and digits');
      return { gst_number: value.trim().toUpperCase() };
    }
    case 'final':
      return {};
  }
}

/** The application as stored. */
export interface KycApplication {
  id: string;
  organisationId: string;
  integrationId: string | null;
  providerApplicationId: string;
  accountType: 'individual' | 'business';
  state: KycState;
  providerStatus: string;
  statusSource: 'step' | 'live_check';
  lastStep: KycStep;
  aadhaarVerified: boolean;
  submittedAt: Date | null;
  decidedAt: Date | null;
  rejectionReason: string | null;
  lastCheckedAt: Date;
  verificationUnavailable: boolean;
  statusUnrecognised: boolean;
}

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
