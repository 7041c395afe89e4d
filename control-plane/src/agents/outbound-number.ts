/**
 * An agent's outbound caller number (spec document 2, Agents rule 2). On create, unless both callingNumber and
 * telephonyProvider are sent, the agent gets the organisation's newest active carrier-a number, else its newest
 * active number on another provider. A number written in local format ("020 7946 0018", "9876543210") is resolved
 * to the E.164 number of the organisation it matches.
 */
import { badField } from '../errors.ts';
import type { Carrier } from './field-schemas.ts';
import type { PhoneNumberRow } from './repository.ts';
import { isE164 } from '../http/e164.ts';

/** The carrier whose numbers are preferred: the websocket-bridge carrier used for purchased numbers and calls. */
export const PREFERRED_CARRIER: Carrier = 'carrier-a';
/** Fewer digits than this match too many numbers to be anyone's local form of one. */
const MIN_LOCAL_DIGITS = 6;
/** The longest country calling code, digits: a local form may leave out at most this many leading digits. */
const MAX_COUNTRY_CODE_DIGITS = 3;

export interface OutboundNumber {
  callingNumber: string | null;
  telephonyProvider: Carrier | null;
}

/** The organisation's default: newest active carrier-a number, else newest active number (rows come newest first). */
export function defaultOutboundNumber(numbers: readonly PhoneNumberRow[]): PhoneNumberRow | undefined {
  return numbers.find((n) => n.provider === PREFERRED_CARRIER) ?? numbers[0];
}

/** The number and provider a new agent gets from what was sent and the organisation's active numbers. */
export function outboundNumberForCreate(sent: OutboundNumber, numbers: readonly PhoneNumberRow[]): OutboundNumber {
  if (!(sent.callingNumber && sent.telephonyProvider)) {
    const fallback = defaultOutboundNumber(numbers);
    if (fallback) return { callingNumber: fallback.phone_number, telephonyProvider: fallback.provider };
  }
  return {
    callingNumber: resolveCallingNumber(sent.callingNumber, sent.telephonyProvider, numbers),
    telephonyProvider: sent.telephonyProvider,
  };
}

/**
 * The E.164 form of a sent number: kept when already E.164 (spaces and punctuation removed); in local form,
 * the organisation's one number it matches (preferring the named provider's), else a 400 naming callingNumber.
 */
export function resolveCallingNumber(
  sent: string | null,
  provider: Carrier | null,
  numbers: readonly PhoneNumberRow[],
): string | null {
  // The organisation may dial out through SIP or a number not imported yet: an E.164 number is taken as sent.
  if (sent === null) return null;
  const compact = sent.replace(/[\s().-]/g, '');
  if (!/^\+?\d+$/.test(compact))
    throw badField('callingNumber', 'must be a phone number: digits, best in E.164 form (+ and the country code)');
  const international = compact.startsWith('00') ? `+${compact.slice(2)}` : compact;
  if (international.startsWith('+')) {
    if (!isE164(international))
      throw badField('callingNumber', 'must be an E.164 number: + then the country code and number, 8 to 15 digits');
    return international;
  }
  const local = international.replace(/^0+/, '');
  const matches = local.length >= MIN_LOCAL_DIGITS ? numbers.filter((n) => isLocalFormOf(local, n.phone_number)) : [];
  const preferred = provider ? matches.filter((n) => n.provider === provider) : [];
  const candidates = preferred.length ? preferred : matches;
  const distinct = [...new Set(candidates.map((n) => n.phone_number))];
  if (distinct.length === 1) return distinct[0]!;
  throw badField(
    'callingNumber',
    distinct.length > 1
      ? `matches several numbers of the organisation (${distinct.join(', ')}): send it in E.164 form`
      : 'is not in E.164 form (+ and the country code) and matches no active number of the organisation',
  );
}

/** Whether `digits` (no trunk prefix) is the national part of an E.164 number, or the number without its +. */
function isLocalFormOf(digits: string, e164: string): boolean {
  const full = e164.slice(1);
  return full.endsWith(digits) && full.length - digits.length <= MAX_COUNTRY_CODE_DIGITS;
}
