/**
 * Phone numbers in E.164 (`+` country code and number, 8 to 15 digits): the one form Parley stores and sends to
 * carriers. One pattern for schemas, checks and messages alike.
 */

/** The pattern as JSON Schema `pattern` text. */
export const E164_PATTERN = '^\\+[1-9][0-9]{6,14}$';
const E164 = new RegExp(E164_PATTERN);

/** How a 400 says what was expected. */
export const E164_EXAMPLE = 'an E.164 number such as +14155550100';

export function isE164(value: string): boolean {
  return E164.test(value);
}
