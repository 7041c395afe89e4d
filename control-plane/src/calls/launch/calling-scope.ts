/**
 * Where a number may call (spec document 2: 403 "destination country blocked by the number's calling scope"). Each
 * number has a calling scope, SAME_COUNTRY unless changed — the carriers' own default against toll fraud:
 *
 * - SAME_COUNTRY       the destination is in the calling number's country
 * - ALLOWED_COUNTRIES  the destination is in the number's country or one of its allowedCountries (ISO 3166 alpha-2)
 * - ANY                anywhere
 *
 * Countries come from the numbering plan (libphonenumber's metadata); a number whose country it cannot tell (a
 * reserved range such as +1 555 01xx) is compared by its country calling code instead.
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js/min';
import { ApiError } from '../../errors.ts';

export const CALLING_SCOPES = ['SAME_COUNTRY', 'ALLOWED_COUNTRIES', 'ANY'] as const;
export type CallingScope = (typeof CALLING_SCOPES)[number];

/** Where a number is: its ISO country when known, else its country calling code (`+1`). */
export function regionOf(number: string): string | undefined {
  const parsed = parsePhoneNumberFromString(number);
  if (!parsed) return undefined;
  return parsed.country ?? `+${parsed.countryCallingCode}`;
}

export interface DestinationCheck {
  from: string;
  to: string;
  scope: string;
  allowedCountries: readonly string[];
}

/** Throws 403 when `to` is outside the calling number's scope. */
export function assertDestinationAllowed(check: DestinationCheck): void {
  if (check.scope === 'ANY') return;
  const home = regionOf(check.from);
  const destination = regionOf(check.to);
  const sameCallingCode = () =>
    parsePhoneNumberFromString(check.from)?.countryCallingCode ===
    parsePhoneNumberFromString(check.to)?.countryCallingCode;
  const unknown =
    home === undefined || destination === undefined || home.startsWith('+') || destination.startsWith('+');
  if (unknown ? sameCallingCode() : home === destination) return;
  if (check.scope === 'ALLOWED_COUNTRIES' && destination && check.allowedCountries.includes(destination)) return;
  throw new ApiError(
    'forbidden',
    `Calls from ${check.from} may not reach ${destination ?? 'that destination'}: the number's calling scope is ${check.scope}` +
      (check.scope === 'ALLOWED_COUNTRIES' ? ` (${check.allowedCountries.join(', ') || 'no other country'})` : ''),
  );
}
