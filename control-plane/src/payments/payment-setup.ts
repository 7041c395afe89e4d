/** What the payment services work with: the processor and signing keys when configured, and where Parley is. */
import type { Sql } from '../db/database.ts';
import { ApiError } from '../errors.ts';
import type { RazorpayClient } from '../integrations/payments/razorpay.ts';
import type { KeyRing } from '../secrets/key-ring.ts';

export type PaymentLog = (level: 'info' | 'warn' | 'error', message: string, detail: object) => void;

export interface PaymentSetup {
  sql: Sql;
  /** Undefined: PARLEY_PAYMENTS_* are not set, and card payments are unavailable. */
  processor: RazorpayClient | undefined;
  /** Signs quotes and payment-page links; undefined only in apps built without secrets. */
  keyRing: KeyRing | undefined;
  /** PARLEY_PUBLIC_URL, without a trailing slash: the hosted payment page and the dashboard live under it. */
  publicUrl: string;
  /** PARLEY_FX_USD_INR ×10⁴. */
  usdInrRateE4: number | undefined;
  log: PaymentLog;
  /** The clock quotes and links are dated by; tests may move it. */
  now: () => Date;
}

export const PAYMENT_SETTINGS = 'PARLEY_PAYMENTS_KEY_ID, PARLEY_PAYMENTS_KEY_SECRET and PARLEY_PAYMENTS_WEBHOOK_SECRET';

/** The processor and keys, or 503: nothing can be sold without them. */
export function checkoutTools(setup: PaymentSetup): { processor: RazorpayClient; keyRing: KeyRing } {
  if (!setup.processor) {
    throw new ApiError('unavailable', `Card payments are unavailable: the operator has not set ${PAYMENT_SETTINGS}`);
  }
  if (!setup.keyRing) throw new ApiError('unavailable', 'Card payments are unavailable: no secret keys are configured');
  return { processor: setup.processor, keyRing: setup.keyRing };
}

/** No billing country yet: a state to change first, not a malformed request (invalid_state, 400, naming the field). */
export function billingCountryMissing(): ApiError {
  const message = 'is not set: set it with PUT /billing/country/{organisationId} first';
  return new ApiError('invalid_state', `billingCountry ${message}`, { fields: [{ field: 'billingCountry', message }] });
}
