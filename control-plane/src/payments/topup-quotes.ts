/**
 * POST /billing/topup-quote (spec document 2): what a pay-as-you-go top-up costs — credit, fee, tax, total, the
 * exchange rate — as a signed quote valid 10 minutes and usable once (payment-orders.ts uses it).
 */
import { newId } from '../db/ids.ts';
import { ApiError, badField, notFound } from '../errors.ts';
import { GATEWAY } from '../integrations/payments/razorpay.ts';
import {
  MINIMUM_TOP_UP_USD_MINOR,
  RATE_SCALE,
  checkoutCurrencyOf,
  majorOf,
  minorOf,
  priceTopUp,
  type TopUpPrice,
} from './checkout-terms.ts';
import { readOrganisationBilling, type OrganisationBilling } from './billing-facts-repository.ts';
import { billingCountryMissing, checkoutTools, type PaymentSetup } from './payment-setup.ts';
import { insertQuote } from './quote-repository.ts';
import { signQuote } from './quote-token.ts';

/** Spec: a quote is valid 10 minutes — long enough to read it and pay, short enough that rates and taxes hold. */
export const QUOTE_VALIDITY_MS = 10 * 60 * 1000;

export interface QuoteRequest {
  organisationId: string;
  /** Wallet credit in major units of the checkout currency. */
  amount: number;
  currency?: string;
}

export interface Quote {
  gateway: string;
  walletCredit: { amount: number; currency: string };
  walletCreditUsd: number;
  subtotal: number;
  platformFee: number;
  platformFeeLabel: string;
  tax: number;
  taxLabel: string;
  total: number;
  chargeCurrency: string;
  fx: { from: string; to: string; rate: number; source: string } | null;
  rate: number;
  quoteId: string;
  expiresAt: string;
  minimumTopUp: { amountUsd: number; meetsMinimum: boolean };
}

export async function quoteTopUp(setup: PaymentSetup, request: QuoteRequest): Promise<Quote> {
  const { keyRing } = checkoutTools(setup);
  const organisation = await payAsYouGoOrganisation(setup, request.organisationId);
  const country = organisation.billingCountry;
  const currency = checkoutCurrencyOf(country);
  if (request.currency !== undefined && request.currency.toUpperCase() !== currency) {
    throw badField('body.currency', `must be ${currency}, the checkout currency of billing country ${country}`);
  }
  const walletCreditMinor = minorOf(request.amount);
  if (walletCreditMinor === undefined || walletCreditMinor <= 0) {
    throw badField('body.amount', 'must be a positive amount with at most two decimals');
  }
  const price = priceOrRefuse(setup, walletCreditMinor, country);
  const quoteId = newId();
  const expiresAt = new Date(setup.now().getTime() + QUOTE_VALIDITY_MS);
  const token = signQuote(keyRing, {
    quoteId,
    organisationId: organisation.id,
    billingCountry: country,
    walletCreditMinor,
    walletCurrency: price.walletCurrency,
    walletCreditUsdMinor: price.walletCreditUsdMinor,
    totalMinor: price.totalMinor,
    chargeCurrency: price.chargeCurrency,
    expiresAt: expiresAt.getTime(),
  });
  const quote = quoteOf(price, token, expiresAt);
  await insertQuote(
    setup.sql,
    {
      id: quoteId,
      organisationId: organisation.id,
      billingCountry: country,
      walletCreditMinor,
      walletCurrency: price.walletCurrency,
      walletCreditUsdMinor: price.walletCreditUsdMinor,
      totalMinor: price.totalMinor,
      chargeCurrency: price.chargeCurrency,
      expiresAt,
    },
    { ...quote },
  );
  return quote;
}

/** The organisation, when it may buy pay-as-you-go credit: it exists, bills pay-as-you-go, and has a country. */
export async function payAsYouGoOrganisation(
  setup: PaymentSetup,
  organisationId: string,
): Promise<OrganisationBilling & { billingCountry: string }> {
  const organisation = await readOrganisationBilling(setup.sql, organisationId);
  if (!organisation) throw notFound('Organisation');
  if (organisation.billingModel !== 'LEGACY_USD') throw planBilling();
  const country = organisation.billingCountry;
  if (!country) {
    throw billingCountryMissing();
  }
  return { ...organisation, billingCountry: country };
}

export const planBilling = () =>
  new ApiError('billing_model_mismatch', 'This organisation is on plan billing: top up with POST /billing/topups');

/** The price under today's settings, or 502 when a rupee price needs an exchange rate nobody configured. */
export function priceOrRefuse(setup: PaymentSetup, walletCreditMinor: number, country: string): TopUpPrice {
  const price = priceTopUp(walletCreditMinor, country, setup.usdInrRateE4);
  if (price === 'no_exchange_rate') {
    throw new ApiError(
      'upstream_failed',
      'No US dollar to rupee exchange rate is available (the operator sets PARLEY_FX_USD_INR)',
    );
  }
  return price;
}

function quoteOf(price: TopUpPrice, quoteId: string, expiresAt: Date): Quote {
  const converted = price.chargeCurrency !== 'USD';
  return {
    gateway: GATEWAY,
    walletCredit: { amount: majorOf(price.walletCreditMinor), currency: price.walletCurrency },
    walletCreditUsd: majorOf(price.walletCreditUsdMinor),
    subtotal: majorOf(price.subtotalMinor),
    platformFee: majorOf(price.platformFeeMinor),
    platformFeeLabel: price.platformFeeLabel,
    tax: majorOf(price.taxMinor),
    taxLabel: price.taxLabel,
    total: majorOf(price.totalMinor),
    chargeCurrency: price.chargeCurrency,
    fx: converted
      ? { from: 'USD', to: price.chargeCurrency, rate: price.rateE4 / RATE_SCALE, source: 'configured' }
      : null,
    rate: price.rateE4 / RATE_SCALE,
    quoteId,
    expiresAt: expiresAt.toISOString(),
    minimumTopUp: { amountUsd: majorOf(MINIMUM_TOP_UP_USD_MINOR), meetsMinimum: price.meetsMinimum },
  };
}
