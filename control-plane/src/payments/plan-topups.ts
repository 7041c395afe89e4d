/**
 * POST /billing/topups (spec document 2): a top-up of the plan wallet. Nothing is charged by the call: it creates an
 * order at the processor and a PENDING payment; the money arrives as a TOP_UP grant (spendable 365 days) when the
 * processor's signed webhook confirms the payment (payment-webhooks.ts). India pays the amount plus 18 % GST and
 * must have invoice details on file; elsewhere the charge is the amount, in US cents.
 */
import { newId } from '../db/ids.ts';
import { ApiError, badField, notFound } from '../errors.ts';
import { GATEWAY } from '../integrations/payments/razorpay.ts';
import { WALLET_SCALE } from '../wallet/ledger-types.ts';
import { INDIA, taxOn } from '../billing/countries.ts';
import { checkoutCurrencyOf } from './checkout-terms.ts';
import { readOrganisationBilling, topUpPlanOf, type OrganisationBilling } from './billing-facts-repository.ts';
import { insertPayment } from './payment-repository.ts';
import { billingCountryMissing, checkoutTools, type PaymentSetup } from './payment-setup.ts';
import { payLink } from './pay-link.ts';
import { orderAtProcessor } from './payment-orders.ts';

/** The dashboard's billing page: where a payer outside India returns unless they named another dashboard page. */
export const DASHBOARD_BILLING_PATH = '/billing';
/** India's GSTIN: state code, PAN, entity number, `Z`, check character. */
const GSTIN = /^\d{2}[A-Z]{5}\d{4}[A-Z][1-9A-Z]Z[0-9A-Z]$/;

export interface PlanTopUpRequest {
  organisationId: string;
  amountMinor: number;
  returnUrl?: string;
}

export interface PlanTopUp {
  rail: string;
  amountMinor: number;
  currency: string;
  chargeMinor: number;
  checkoutUrl: string;
  /** The payment id: what the payer's statement and Parley's records name. */
  reference: string;
}

export async function createPlanTopUp(
  setup: PaymentSetup,
  userId: string,
  request: PlanTopUpRequest,
): Promise<PlanTopUp> {
  const { processor, keyRing } = checkoutTools(setup);
  const organisation = await readOrganisationBilling(setup.sql, request.organisationId);
  if (!organisation) throw notFound('Organisation');
  if (organisation.billingModel !== 'WALLET') {
    throw new ApiError(
      'conflict',
      'This organisation is on pay-as-you-go billing: top up with POST /billing/topup-quote and /payments/create-order',
    );
  }
  const country = organisation.billingCountry;
  if (!country) {
    throw billingCountryMissing();
  }
  const plan = await topUpPlanOf(setup.sql, organisation.id, checkoutCurrencyOf(country));
  if (!plan || plan.topUpPresets.length === 0) {
    throw new ApiError('conflict', `Top-ups are not on sale in ${checkoutCurrencyOf(country)}`);
  }
  const minimum = plan.topUpPresets[0]!;
  if (request.amountMinor < minimum) {
    throw badField(
      'body.amountMinor',
      `must be at least ${minimum} (${plan.currency} minor units, the smallest top-up)`,
    );
  }
  const india = country === INDIA;
  if (india) assertInvoiceDetails(organisation);
  const chargeMinor = request.amountMinor + taxOn(request.amountMinor, checkoutCurrencyOf(country));
  const now = setup.now();
  const paymentId = newId();
  // No quote to claim: the order is made first and the payment stored after it. An order whose payment could not be
  // stored is never shown to anyone, so nobody can pay it.
  const pgOrderId = await orderAtProcessor(processor, {
    paymentId,
    organisationId: organisation.id,
    kind: 'PLAN_TOPUP',
    chargeMinor,
    currency: plan.currency,
  });
  await insertPayment(setup.sql, {
    id: paymentId,
    organisationId: organisation.id,
    kind: 'PLAN_TOPUP',
    quoteId: null,
    gateway: GATEWAY,
    pgOrderId,
    chargeMinor,
    chargeCurrency: plan.currency,
    creditAmount: request.amountMinor * WALLET_SCALE.PLAN_WALLET,
    creditCurrency: plan.currency,
    billingCountry: country,
    returnUrl: india ? null : returnUrlOf(setup.publicUrl, request.returnUrl),
    createdById: userId,
  });
  setup.log('info', 'plan top-up order created', { paymentId, organisationId: organisation.id });
  return {
    rail: plan.rail,
    amountMinor: request.amountMinor,
    currency: plan.currency,
    chargeMinor,
    checkoutUrl: payLink(keyRing, setup.publicUrl, paymentId, now),
    reference: paymentId,
  };
}

/**
 * Where the payer goes after paying: a page of the dashboard they named, else the dashboard's billing page — never
 * an address outside Parley (an open redirect on a payment page is a phishing tool).
 */
export function returnUrlOf(publicUrl: string, returnUrl: string | undefined): string {
  const billing = `${publicUrl}${DASHBOARD_BILLING_PATH}`;
  if (!returnUrl) return billing;
  try {
    const wanted = new URL(returnUrl);
    const dashboard = new URL(publicUrl);
    return wanted.origin === dashboard.origin ? wanted.toString() : billing;
  } catch {
    return billing;
  }
}

/** India's tax invoice names the buyer: a company and its address, and a well-formed GSTIN when one is given. */
function assertInvoiceDetails(organisation: OrganisationBilling): void {
  const invoice = organisation.invoice;
  const missing = Object.entries({
    companyName: invoice.companyName,
    addressLine1: invoice.addressLine1,
    city: invoice.city,
    state: invoice.state,
    postalCode: invoice.postalCode,
  })
    .filter(([, value]) => !value?.trim())
    .map(([name]) => name);
  if (missing.length > 0) {
    throw new ApiError('conflict', `India invoice details are missing: ${missing.join(', ')} (billing details)`);
  }
  if (invoice.gstin && !GSTIN.test(invoice.gstin.toUpperCase())) {
    throw new ApiError('conflict', 'The GSTIN on file is not a valid GSTIN: correct the billing details');
  }
}
