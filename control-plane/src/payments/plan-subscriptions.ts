/**
 * POST /billing/subscriptions: buying a plan at the checkout (docs/architecture.md §10). Nothing is charged by the
 * call: it creates an order for the plan's monthly fee (plus 18 % GST in India unless the fee includes it) and a
 * PENDING payment naming the plan. When the processor's signed webhook confirms the payment, the subscription
 * starts ACTIVE with its first allowance in the plan wallet (payment-webhooks.ts → billing/subscriptions.ts).
 */
import { INDIA, taxOn } from '../billing/countries.ts';
import { findPlan, liveSubscription } from '../billing/plan-repository.ts';
import { newId } from '../db/ids.ts';
import { ApiError, badField, notFound } from '../errors.ts';
import { GATEWAY } from '../integrations/payments/razorpay.ts';
import { checkoutCurrencyOf } from './checkout-terms.ts';
import { readOrganisationBilling } from './billing-facts-repository.ts';
import { insertPayment } from './payment-repository.ts';
import { orderAtProcessor } from './payment-orders.ts';
import { billingCountryMissing, checkoutTools, type PaymentSetup } from './payment-setup.ts';
import { payLink } from './pay-link.ts';
import { assertInvoiceDetails, returnUrlOf } from './plan-checkout.ts';

const E4 = 10_000;

export interface PlanPurchaseRequest {
  organisationId: string;
  planId: string;
  returnUrl?: string;
}

export interface PlanPurchase {
  planId: string;
  planCode: string;
  /** The monthly fee before tax, minor units. */
  amountMinor: number;
  taxMinor: number;
  /** What the payer is charged, tax included. */
  chargeMinor: number;
  currency: string;
  checkoutUrl: string;
  /** The payment id. */
  reference: string;
}

export async function startPlanPurchase(
  setup: PaymentSetup,
  userId: string,
  request: PlanPurchaseRequest,
): Promise<PlanPurchase> {
  const { processor, keyRing } = checkoutTools(setup);
  const organisation = await readOrganisationBilling(setup.sql, request.organisationId);
  if (!organisation) throw notFound('Organisation');
  const country = organisation.billingCountry;
  if (!country) throw billingCountryMissing();
  const plan = await findPlan(setup.sql, request.planId);
  if (!plan || !plan.isActive) throw badField('body.planId', 'is not a plan on sale (GET /billing/plans lists them)');
  const currency = checkoutCurrencyOf(country);
  if (plan.currency !== currency) {
    throw new ApiError(
      'conflict',
      `Plan ${plan.code} is sold in ${plan.currency}; this organisation pays in ${currency}`,
    );
  }
  const current = await liveSubscription(setup.sql, organisation.id);
  // A lapsed (PAST_DUE) subscription is renewed by buying again; an ACTIVE one is changed instead.
  if (current?.status === 'ACTIVE') {
    throw new ApiError(
      'conflict',
      `The organisation already has a subscription (${current.id}): change it with POST /billing/subscriptions/${current.id}/change`,
    );
  }
  const india = country === INDIA;
  if (india) assertInvoiceDetails(organisation);
  const amountMinor = Math.ceil(plan.feeE4 / E4);
  const taxMinor = plan.taxInclusive ? 0 : taxOn(amountMinor, currency);
  const chargeMinor = amountMinor + taxMinor;
  const paymentId = newId();
  // As for plan top-ups: the order is made first and the payment stored after it; an order without a stored
  // payment is never shown to anyone, so nobody can pay it.
  const pgOrderId = await orderAtProcessor(processor, {
    paymentId,
    organisationId: organisation.id,
    kind: 'PLAN_SUBSCRIPTION',
    chargeMinor,
    currency,
  });
  await insertPayment(setup.sql, {
    id: paymentId,
    organisationId: organisation.id,
    kind: 'PLAN_SUBSCRIPTION',
    quoteId: null,
    gateway: GATEWAY,
    pgOrderId,
    chargeMinor,
    chargeCurrency: currency,
    // What the plan wallet receives: the first allowance (or, when the plan can no longer start, the fee as a top-up).
    creditAmount: plan.allowanceE4 > 0 ? plan.allowanceE4 : plan.feeE4,
    creditCurrency: currency,
    billingCountry: country,
    returnUrl: india ? null : returnUrlOf(setup.publicUrl, request.returnUrl),
    createdById: userId,
    planId: plan.id,
  });
  setup.log('info', 'plan purchase order created', { paymentId, organisationId: organisation.id, plan: plan.code });
  return {
    planId: plan.id,
    planCode: plan.code,
    amountMinor,
    taxMinor,
    chargeMinor,
    currency,
    checkoutUrl: payLink(keyRing, setup.publicUrl, paymentId, setup.now()),
    reference: paymentId,
  };
}
