/** What the hosted payment page (GET /pay/{paymentId}) shows: the payment its signed link opens. */
import { isId } from '../db/ids.ts';
import { notFound } from '../errors.ts';
import { readOrganisationBilling } from './billing-facts-repository.ts';
import { findPayment, type PaymentStatus } from './payment-repository.ts';
import { checkoutTools, type PaymentSetup } from './payment-setup.ts';
import { payLinkValid } from './pay-link.ts';

export interface CheckoutPage {
  paymentId: string;
  status: PaymentStatus;
  organisationName: string;
  /** What the payer is charged. */
  amountMinor: number;
  currency: string;
  pgOrderId: string;
  pgKeyId: string;
  /** Where the payer goes once paid (plan top-ups outside India), else null. */
  returnUrl: string | null;
}

/** The page's payment; 404 alike for an unknown payment and a link that is wrong or stale (nothing to probe). */
export async function readCheckoutPage(setup: PaymentSetup, paymentId: string, token: string): Promise<CheckoutPage> {
  const { processor, keyRing } = checkoutTools(setup);
  if (!isId(paymentId) || !payLinkValid(keyRing, paymentId, token, setup.now())) throw notFound('Payment');
  const payment = await findPayment(setup.sql, paymentId);
  if (!payment) throw notFound('Payment');
  const organisation = await readOrganisationBilling(setup.sql, payment.organisationId);
  return {
    paymentId,
    status: payment.status,
    organisationName: organisation?.name ?? '',
    amountMinor: payment.chargeMinor,
    currency: payment.chargeCurrency,
    pgOrderId: payment.pgOrderId,
    pgKeyId: processor.keyId,
    returnUrl: payment.returnUrl,
  };
}
