/**
 * The India KYC application (spec document 1) of an organisation, stored by kyc-repository.ts (migration 006):
 * what each wizard step's payload must hold (spec document 2), how the partner's status word reads in Parley's
 * terms, and the next action the customer takes, computed from the state on every read.
 *
 * States: in_progress (the wizard is under way; the spec shows this one), pending_review (final submitted, the
 * partner reviews), approved (numbers may be bought), rejected (the partner's reason is kept; the wizard starts
 * again from register), unknown (a status word Parley does not know: statusUnrecognised).
 */
import { badField } from '../../errors.ts';
import { KYC_STEPS, type KycStep } from './api.ts';

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
