import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, hashesEqual, parseApiKey } from './api-key.ts';

describe('API key values', () => {
  it('have the spec format parley_prod_<8-char prefix>_<32 hex> and parse back to their prefix', () => {
    for (let i = 0; i < 200; i += 1) {
      const key = generateApiKey();
      expect(key.value).toMatch(/^parley_prod_[a-z0-9]{8}_[0-9a-f]{32}$/);
      expect(parseApiKey(key.value)).toEqual({ prefix: key.prefix });
      expect(key.last4).toBe(key.value.slice(-4));
      expect(key.hash).toBe(hashApiKey(key.value));
      expect(key.hash).not.toContain(key.value.slice(-32));
    }
  });

  it('are unique', () => {
    const values = new Set(Array.from({ length: 1000 }, () => generateApiKey().value));
    const prefixes = new Set([...values].map((v) => parseApiKey(v)!.prefix));
    expect(values.size).toBe(1000);
    expect(prefixes.size).toBeGreaterThan(995);
  });

  it('reject anything that is not exactly the format', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        if (!/^parley_prod_[a-z0-9]{8}_[0-9a-f]{32}$/.test(text)) expect(parseApiKey(text)).toBeUndefined();
      }),
    );
    expect(parseApiKey('parley_prod_ABCDEFGH_00000000000000000000000000000000')).toBeUndefined();
    expect(parseApiKey(`${generateApiKey().value} `)).toBeUndefined();
  });

  it('compare hashes in constant time and only equal ones match', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(hashesEqual(a.hash, a.hash)).toBe(true);
    expect(hashesEqual(a.hash, b.hash)).toBe(false);
    expect(hashesEqual(a.hash, 'abcd')).toBe(false);
  });
});
