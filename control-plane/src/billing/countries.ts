/**
 * Billing countries (spec document 2, PUT /billing/country): the ISO 3166-1 alpha-2 codes Parley takes payments
 * from, and what a country decides — the checkout currency and processor, and the tax. India pays in rupees with
 * 18% GST through the India processor; everywhere else pays in US dollars by card, without tax added.
 */

/** The supported billing countries (about 90), ISO 3166-1 alpha-2. */
export const SUPPORTED_BILLING_COUNTRIES: ReadonlySet<string> = new Set([
  'AE',
  'AR',
  'AT',
  'AU',
  'BD',
  'BE',
  'BG',
  'BH',
  'BR',
  'CA',
  'CH',
  'CL',
  'CO',
  'CR',
  'CY',
  'CZ',
  'DE',
  'DK',
  'DO',
  'EC',
  'EE',
  'EG',
  'ES',
  'FI',
  'FR',
  'GB',
  'GH',
  'GR',
  'GT',
  'HK',
  'HR',
  'HU',
  'ID',
  'IE',
  'IL',
  'IN',
  'IS',
  'IT',
  'JM',
  'JO',
  'JP',
  'KE',
  'KR',
  'KW',
  'KZ',
  'LB',
  'LK',
  'LT',
  'LU',
  'LV',
  'MA',
  'MT',
  'MU',
  'MX',
  'MY',
  'NG',
  'NL',
  'NO',
  'NP',
  'NZ',
  'OM',
  'PA',
  'PE',
  'PH',
  'PK',
  'PL',
  'PR',
  'PT',
  'PY',
  'QA',
  'RO',
  'RS',
  'SA',
  'SE',
  'SG',
  'SI',
  'SK',
  'TH',
  'TN',
  'TR',
  'TW',
  'TZ',
  'UA',
  'UG',
  'US',
  'UY',
  'VN',
  'ZA',
  'ZM',
]);

/** The country whose organisations pay in rupees, with GST, through the India processor. */
export const INDIA = 'IN';

/** GST on Indian charges, in basis points (18%). */
export const INDIA_TAX_BASIS_POINTS = 1_800;

export type BillingCurrency = 'INR' | 'USD';

/** The country as stored (upper case) when supported, else undefined. Case-insensitive; surrounding spaces ignored. */
export function supportedCountry(text: string): string | undefined {
  const code = text.trim().toUpperCase();
  return SUPPORTED_BILLING_COUNTRIES.has(code) ? code : undefined;
}

/** The currency a billing country pays (and plan-bills) in; no country yet: US dollars. */
export function currencyOfCountry(country: string | null | undefined): BillingCurrency {
  return country?.toUpperCase() === INDIA ? 'INR' : 'USD';
}

/** Whether moving between the two countries changes the currency plan billing runs in (India ⇄ elsewhere). */
export function changesPlanCurrency(from: string | null, to: string): boolean {
  return from !== null && currencyOfCountry(from) !== currencyOfCountry(to);
}

/** Tax added to a charge in `currency`, rounded up to a whole unit of what is passed (minor units or e4). */
export function taxOn(amount: number, currency: BillingCurrency): number {
  return currency === 'INR' ? Math.ceil((amount * INDIA_TAX_BASIS_POINTS) / 10_000) : 0;
}
