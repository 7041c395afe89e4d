/**
 * Rules shared by the plan-billing checkouts (top-ups and plan purchases): where the payer returns to, and the
 * invoice details India's tax invoice needs.
 */
import { ApiError } from '../errors.ts';
import type { OrganisationBilling } from './billing-facts-repository.ts';

/** The dashboard's billing page: where a payer outside India returns unless they named another dashboard page. */
export const DASHBOARD_BILLING_PATH = '/billing';
/** India's GSTIN: state code, PAN, entity number, `Z`, check character. */
const GSTIN = /^\d{2}[A-Z]{5}\d{4}[A-Z][1-9A-Z]Z[0-9A-Z]$/;

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
export function assertInvoiceDetails(organisation: OrganisationBilling): void {
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
