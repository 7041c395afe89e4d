import { describe, expect, it } from 'vitest';
import { basisPointsOf, minorOf, priceTopUp } from './checkout-terms.ts';

describe('top-up prices', () => {
  it('India: rupees, 18 % GST on top, the USD credit converted at the rate and rounded down', () => {
    expect(priceTopUp(100_000, 'in', 832_500)).toMatchObject({
      billingCountry: 'IN',
      walletCurrency: 'INR',
      chargeCurrency: 'INR',
      subtotalMinor: 100_000,
      platformFeeMinor: 0,
      taxMinor: 18_000,
      taxLabel: 'GST 18 %',
      totalMinor: 118_000,
      // 1000 / 83.25 = 12.0120… dollars
      walletCreditUsdMinor: 1201,
      meetsMinimum: true,
    });
    expect(priceTopUp(80_000, 'IN', 832_500)).toMatchObject({ walletCreditUsdMinor: 960, meetsMinimum: false });
    expect(priceTopUp(100_000, 'IN', undefined)).toBe('no_exchange_rate');
  });

  it('elsewhere: US dollars, no tax, the credit is the charge', () => {
    expect(priceTopUp(2_550, 'DE', undefined)).toMatchObject({
      walletCurrency: 'USD',
      walletCreditUsdMinor: 2_550,
      taxMinor: 0,
      taxLabel: 'No tax',
      totalMinor: 2_550,
      rateE4: 10_000,
      meetsMinimum: true,
    });
    expect(priceTopUp(999, 'US', undefined)).toMatchObject({ meetsMinimum: false });
  });

  it('rounds GST up to the paisa, the fee half up, and refuses amounts with more than two decimals', () => {
    expect(priceTopUp(2, 'IN', 832_500)).toMatchObject({ taxMinor: 1, totalMinor: 3 }); // 0.36 paise → 1
    expect(basisPointsOf(3, 1800)).toBe(1); // 0.54 → 1
    expect(basisPointsOf(2, 1800)).toBe(0); // 0.36 → 0
    expect(minorOf(12.5)).toBe(1250);
    expect(minorOf(0.1 + 0.2)).toBe(30);
    expect(minorOf(1.005)).toBeUndefined();
  });
});
