/**
 * What an attacker or a broken client sends instead of a field's value: the wrong type, the absent value, numbers
 * past every column, text Postgres cannot store, control and bidi characters, very long text, deep nesting and
 * prototype keys. Each one is a value JSON can carry; raw-text attacks (invalid JSON, malformed percent-encoding)
 * live in request-arbitrary.ts, which writes the request bytes itself.
 */
import fc from 'fast-check';

const nested = (depth: number): unknown => {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

export const HOSTILE_TEXT: readonly string[] = [
  '',
  ' ',
  '\u0000',
  'before\u0000after',
  '\uD800',
  'lone low \uDC00 surrogate',
  '\u0001\u0002\u001b[31m\u007f',
  '\r\nX-Injected: yes',
  '\u202eevil\u202c',
  '😀👩‍👩‍👧',
  '%00',
  '%',
  '%E0%A4%A',
  '../../../../etc/passwd',
  "' or 1=1 --",
  '<script>alert(1)</script>',
  '{{7*7}}${7*7}',
  '1e20',
  'Infinity',
  'NaN',
  '-0',
  '0x1F',
  '9223372036854775808',
  '-9223372036854775809',
  '2026-13-45T99:99:99Z',
  'true',
  'null',
  'x'.repeat(101),
  'é'.repeat(5000),
  'y'.repeat(100_001),
];

export const HOSTILE_NUMBERS: readonly number[] = [
  -1,
  0,
  0.5,
  -0,
  2 ** 31,
  2 ** 53 + 2,
  1e20,
  -1e20,
  Number.MAX_VALUE,
  -Number.MAX_VALUE,
  Number.MIN_VALUE,
];

/** Any JSON value that is hostile to some field, whatever that field expects. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...HOSTILE_TEXT),
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.constantFrom<unknown>(null, true, false, [], {}, [null], { '': '' }),
  fc.constantFrom<unknown>(
    nested(60),
    nested(2000),
    Array.from({ length: 5000 }, (_, i) => i),
    JSON.parse('{"__proto__": {"polluted": "yes"}}'),
    { constructor: { prototype: { polluted: 'yes' } } },
    { toString: 'not a function', valueOf: 1, hasOwnProperty: null },
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.double(),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map((n) => n.toString()),
);

/** A hostile value as it would appear in a query string or a path: text. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...HOSTILE_TEXT),
  fc.constantFrom(...HOSTILE_NUMBERS).map(String),
  fc.string({ unit: 'binary', maxLength: 40 }),
);
