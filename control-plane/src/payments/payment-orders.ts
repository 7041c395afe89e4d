/**
 * POST /payments/create-order (spec document 2): turns a signed top-up quote into an order at the processor and a
 * PENDING payment. Every value the client echoes is checked against the signed quote; the quote is used at most
 * once — claimed in the transaction that stores the payment, so two requests racing for one quote get one order —
 * and a processor that refuses or does not answer leaves the quote unused (the transaction rolls back).
 *
 * The wallet is not credited here: only the processor's signed webhook does that (payment-webhooks.ts).
 */
import { newId } from '../db/ids.ts';
import { ApiError, badField, notFound } from '../errors.ts';
import { GATEWAY, PaymentProcessorError, type RazorpayClient } from '../integrations/payments/razorpay.ts';
import { MINIMUM_TOP_UP_USD_MINOR, majorOf, minorOf } from './checkout-terms.ts';
import { readPayer, type OrganisationBilling } from './billing-facts-repository.ts';
import { insertPayment, type PaymentKind } from './payment-repository.ts';
import { checkoutTools, type PaymentSetup } from './payment-setup.ts';
import { payLink } from './pay-link.ts';
import { claimQuote, findQuote } from './quote-repository.ts';
import { readQuote, type QuoteTerms } from './quote-token.ts';
import { payAsYouGoOrganisation, planBilling, priceOrRefuse } from './topup-quotes.ts';
import { lockBillingProfile } from '../billing/billing-account-repository.ts';

export interface OrderRequest {
  organisationId: string;
  /** The quote's walletCredit.amount. */
  amount: number;
  currency?: string;
  expectedTotal: { amount: number; currency: string; walletCreditUsd: number; quoteId: string };
}

export interface CreatedOrder {
  paymentId: string;
  gateway: string;
  checkoutUrl: string;
  pgOrderId: string;
  pgKeyId: string;
  amountMinor: number;
  currency: string;
  /** Parley creates no customer at the processor: its checkout takes the payer's details from `prefill`. */
  pgCustomerId: string | null;
  prefill: { name: string | null; email: string | null; contact: string | null };
}

export async function createPaymentOrder(
  setup: PaymentSetup,
  userId: string,
  request: OrderRequest,
): Promise<CreatedOrder> {
  const { processor, keyRing } = checkoutTools(setup);
  const organisation = await payAsYouGoOrganisation(setup, request.organisationId);
  const payer = await readPayer(setup.sql, userId);
  if (!payer) throw notFound('User');
  const terms = readQuote(keyRing, request.expectedTotal.quoteId);
  if (!terms) throw badField('body.expectedTotal.quoteId', 'is not a quote Parley issued (or was edited)');
  if (terms.organisationId !== organisation.id) {
    throw badField('body.expectedTotal.quoteId', 'was issued for another organisation');
  }
  const now = setup.now();
  if (terms.expiresAt <= now.getTime()) throw expired();
  checkEcho(terms, request);
  const stored = await findQuote(setup.sql, organisation.id, terms.quoteId);
  if (!stored) throw badField('body.expectedTotal.quoteId', 'is not a quote Parley issued');
  if (stored.expiresAt.getTime() <= now.getTime()) throw expired();
  if (stored.usedAt) throw quoteUsed();
  if (stored.billingCountry !== organisation.billingCountry) {
    throw countryChanged(stored.billingCountry, organisation.billingCountry);
  }
  const price = priceOrRefuse(setup, terms.walletCreditMinor, organisation.billingCountry);
  if (price.totalMinor !== terms.totalMinor || price.walletCreditUsdMinor !== terms.walletCreditUsdMinor) {
    throw new ApiError(
      'conflict',
      'The total changed since the quote (exchange rate, fee or tax): ask for a new quote',
    );
  }
  if (terms.walletCreditUsdMinor < MINIMUM_TOP_UP_USD_MINOR) {
    throw badField('body.amount', `is below the minimum top-up of ${majorOf(MINIMUM_TOP_UP_USD_MINOR)} USD`);
  }

  const paymentId = newId();
  const pgOrderId = await setup.sql.begin(async (tx) => {
    // Held to the end: a billing-country change (which expires pending checkouts) waits for this payment, or this
    // one sees the new country and stops.
    const account = await lockBillingProfile(tx, organisation.id);
    if (!account) throw notFound('Organisation');
    if (account.billingModel !== 'LEGACY_USD') throw planBilling();
    const countryNow = account.billingCountry?.toUpperCase() ?? null;
    if (countryNow !== stored.billingCountry) throw countryChanged(stored.billingCountry, countryNow ?? 'none');
    if (!(await claimQuote(tx, terms.quoteId))) throw quoteUsed();
    // The processor is asked while the quote's row is held: a concurrent request for the same quote waits here and
    // then finds it used, so one quote never makes two orders. Its failure rolls the claim back.
    const order = await orderAtProcessor(processor, {
      paymentId,
      organisationId: organisation.id,
      kind: 'WALLET_TOPUP',
      chargeMinor: terms.totalMinor,
      currency: terms.chargeCurrency,
    });
    await insertPayment(tx, {
      id: paymentId,
      organisationId: organisation.id,
      kind: 'WALLET_TOPUP',
      quoteId: terms.quoteId,
      gateway: GATEWAY,
      pgOrderId: order,
      chargeMinor: terms.totalMinor,
      chargeCurrency: terms.chargeCurrency,
      creditAmount: terms.walletCreditUsdMinor,
      creditCurrency: 'USD',
      billingCountry: organisation.billingCountry,
      returnUrl: null,
      createdById: userId,
    });
    return order;
  });
  setup.log('info', 'payment order created', { paymentId, organisationId: organisation.id, pgOrderId });
  return {
    paymentId,
    gateway: GATEWAY,
    checkoutUrl: payLink(keyRing, setup.publicUrl, paymentId, now),
    pgOrderId,
    pgKeyId: processor.keyId,
    amountMinor: terms.totalMinor,
    currency: terms.chargeCurrency,
    pgCustomerId: null,
    prefill: prefillOf(organisation, payer),
  };
}

/** Creates the order at the processor; its refusal or silence is a 502 (the caller's transaction rolls back). */
export async function orderAtProcessor(
  processor: RazorpayClient,
  order: { paymentId: string; organisationId: string; kind: PaymentKind; chargeMinor: number; currency: string },
): Promise<string> {
  try {
    const created = await processor.createOrder({
      amountMinor: order.chargeMinor,
      currency: order.currency,
      receipt: order.paymentId,
      notes: { organisation_id: order.organisationId, payment_id: order.paymentId, kind: order.kind },
    });
    if (created.amountMinor !== order.chargeMinor || created.currency !== order.currency) {
      throw new PaymentProcessorError('refused', 'the processor created an order for another amount');
    }
    return created.id;
  } catch (error) {
    if (!(error instanceof PaymentProcessorError)) throw error;
    throw new ApiError(
      'upstream_failed',
      error.kind === 'unreachable'
        ? 'The payment processor did not answer; nothing was charged. Try again'
        : `The payment processor refused the order; nothing was charged (${error.message})`,
      { cause: error },
    );
  }
}

export function prefillOf(
  organisation: OrganisationBilling,
  payer: { name: string; email: string },
): CreatedOrder['prefill'] {
  return { name: payer.name || null, email: payer.email || null, contact: organisation.mobile };
}

/** Each value the client sent back must be the signed quote's own (an edited quote is refused, not re-priced). */
function checkEcho(terms: QuoteTerms, request: OrderRequest): void {
  const edited = (field: string) => badField(field, 'does not match the quote: send the quote back unchanged');
  if (minorOf(request.amount) !== terms.walletCreditMinor) throw edited('body.amount');
  if (request.currency !== undefined && request.currency.toUpperCase() !== terms.walletCurrency) {
    throw edited('body.currency');
  }
  const echo = request.expectedTotal;
  if (minorOf(echo.amount) !== terms.totalMinor) throw edited('body.expectedTotal.amount');
  if (echo.currency.toUpperCase() !== terms.chargeCurrency) throw edited('body.expectedTotal.currency');
  if (minorOf(echo.walletCreditUsd) !== terms.walletCreditUsdMinor) throw edited('body.expectedTotal.walletCreditUsd');
}

const expired = () =>
  badField('body.expectedTotal.quoteId', 'has expired (quotes are valid 10 minutes): ask for a new quote');
const countryChanged = (from: string, to: string) =>
  new ApiError('conflict', `The billing country changed from ${from} to ${to} since the quote: ask for a new quote`);
const quoteUsed = () => new ApiError('conflict', 'This quote was already used: ask for a new quote');
