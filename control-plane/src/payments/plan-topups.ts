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
import { readOrganisationBilling, topUpPlanOf } from './billing-facts-repository.ts';
import { assertInvoiceDetails, returnUrlOf } from './plan-checkout.ts';
import { insertPayment } from './payment-repository.ts';
import { billingCountryMissing, checkoutTools, type PaymentSetup } from './payment-setup.ts';
import { payLink } from './pay-link.ts';
import { orderAtProcessor } from './payment-orders.ts';

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
      'billing_model_mismatch',
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
