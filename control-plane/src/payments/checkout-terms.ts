/**
 * What a top-up costs and in which currency (spec document 2, "Wallet and billing (REST)"): India pays in rupees
 * with 18 % GST, everywhere else in US dollars without tax; the pay-as-you-go wallet itself always holds US dollars,
 * so a rupee top-up is converted at the configured exchange rate. Pure: no database, no clock. The country rules
 * (currency, GST and its rounding) are billing/countries.ts's, shared with plan billing.
 */
import { INDIA_TAX_BASIS_POINTS, currencyOfCountry, taxOn, type BillingCurrency } from '../billing/countries.ts';

/**
 * The platform fee, basis points of the wallet credit. The spec shows a fee line but gives no figure, and Parley
 * charges none: the line stays at zero so a fee is one constant away, and the quote shows the payer what it is.
 */
export const PLATFORM_FEE_BASIS_POINTS = 0;
/** Spec document 3: the pay-as-you-go quote reports a minimum of 10 US dollars of wallet credit; cents. */
export const MINIMUM_TOP_UP_USD_MINOR = 1000;
/** Exchange rates are integers ×10⁴ (83.25 → 832500). */
export const RATE_SCALE = 10_000;

export type CheckoutCurrency = BillingCurrency;

/** The checkout currency of a billing country: rupees in India, else US dollars (billing/countries.ts). */
export const checkoutCurrencyOf = (billingCountry: string): CheckoutCurrency => currencyOfCountry(billingCountry);

/** Basis points of an amount, rounded half up to a whole minor unit (the platform fee). */
export function basisPointsOf(amountMinor: number, basisPoints: number): number {
  return Math.floor((amountMinor * basisPoints + 5_000) / 10_000);
}

export interface TopUpPrice {
  billingCountry: string;
  /** The credit as the payer named it, minor units of the checkout currency. */
  walletCreditMinor: number;
  walletCurrency: CheckoutCurrency;
  /** What the USD wallet receives, cents (rounded down: the wallet never gets more than was paid for). */
  walletCreditUsdMinor: number;
  subtotalMinor: number;
  platformFeeMinor: number;
  platformFeeLabel: string;
  taxMinor: number;
  taxLabel: string;
  totalMinor: number;
  chargeCurrency: CheckoutCurrency;
  /** Rupees per US dollar ×10⁴; RATE_SCALE (1.0) for a dollar checkout. */
  rateE4: number;
  meetsMinimum: boolean;
}

/**
 * Prices a pay-as-you-go top-up of `walletCreditMinor` (minor units of the country's checkout currency).
 * `usdInrRateE4` is needed for India only; undefined there means no exchange rate is available.
 */
export function priceTopUp(
  walletCreditMinor: number,
  billingCountry: string,
  usdInrRateE4: number | undefined,
): TopUpPrice | 'no_exchange_rate' {
  const currency = checkoutCurrencyOf(billingCountry);
  let rateE4 = RATE_SCALE;
  if (currency === 'INR') {
    if (usdInrRateE4 === undefined) return 'no_exchange_rate';
    rateE4 = usdInrRateE4;
  }
  const walletCreditUsdMinor = Math.floor((walletCreditMinor * RATE_SCALE) / rateE4);
  const platformFeeMinor = basisPointsOf(walletCreditMinor, PLATFORM_FEE_BASIS_POINTS);
  const taxMinor = taxOn(walletCreditMinor + platformFeeMinor, currency);
  return {
    billingCountry: billingCountry.toUpperCase(),
    walletCreditMinor,
    walletCurrency: currency,
    walletCreditUsdMinor,
    subtotalMinor: walletCreditMinor,
    platformFeeMinor,
    platformFeeLabel:
      PLATFORM_FEE_BASIS_POINTS === 0 ? 'No platform fee' : `Platform fee ${PLATFORM_FEE_BASIS_POINTS / 100} %`,
    taxMinor,
    taxLabel: currency === 'INR' ? `GST ${INDIA_TAX_BASIS_POINTS / 100} %` : 'No tax',
    totalMinor: walletCreditMinor + platformFeeMinor + taxMinor,
    chargeCurrency: currency,
    rateE4,
    meetsMinimum: walletCreditUsdMinor >= MINIMUM_TOP_UP_USD_MINOR,
  };
}

/**
 * A major-unit amount (a JSON number such as 500 or 12.5) as minor units; undefined with more than two decimals,
 * since money is never rounded silently.
 */
export function minorOf(amount: number): number | undefined {
  const minor = Math.round(amount * 100);
  return Number.isSafeInteger(minor) && Math.abs(minor - amount * 100) < 1e-6 ? minor : undefined;
}

/** Minor units as the API's major-unit number: 50025 → 500.25. */
export function majorOf(minor: number): number {
  return minor / 100;
}
