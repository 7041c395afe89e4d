import { describe, expect, it } from 'vitest';
import { REDACTED, scrub, scrubText } from '../src/tools/scrub.ts';

describe('scrub', () => {
  it('redacts secret fields wherever they sit, and keeps identifiers of secrets', () => {
    const scrubbed = scrub({
      functionTools: {
        lookup: { bearerToken: 'tok-123', url: 'https://example.com/hook', headers: { authorization: 'Basic abc' } },
      },
      carrier: {
        authToken: 'carrier-secret',
        password: 'pw',
        apiKey: 'k',
        keyId: 'key_1',
        tokenId: 't1',
        key_prefix: 'abcd1234',
      },
      list: [{ secret: 's' }, 'plain'],
    });
    expect(scrubbed).toEqual({
      functionTools: {
        lookup: { bearerToken: REDACTED, url: 'https://example.com/hook', headers: { authorization: REDACTED } },
      },
      carrier: {
        authToken: REDACTED,
        password: REDACTED,
        apiKey: REDACTED,
        keyId: 'key_1',
        tokenId: 't1',
        key_prefix: 'abcd1234',
      },
      list: [{ secret: REDACTED }, 'plain'],
    });
  });

  it('redacts credentials inside URLs and free text, and nothing else', () => {
    expect(scrubText('see https://bot:hunter2@crm.example.com/x?token=abc&page=2 now')).toBe(
      `see https://bot:${REDACTED}@crm.example.com/x?token=${REDACTED}&page=2 now`,
    );
    expect(scrubText('key parley_prod_abcd1234_0123456789abcdef0123456789abcdef, header Bearer xyz.123')).toBe(
      `key ${REDACTED}, header ${REDACTED}`,
    );
    expect(
      scrubText('a jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'),
    ).toBe(`a jwt ${REDACTED}`);
    expect(scrubText('sk-proj-abcdefghijklmnopqrstuvwx')).toBe(REDACTED);
    const harmless = 'Call +14155550123 at https://example.com/path?page=3 about order 12345';
    expect(scrubText(harmless)).toBe(harmless);
  });

  it('leaves empty secrets and non-strings as they are', () => {
    expect(scrub({ password: '', token: null, count: 3, active: true })).toEqual({
      password: '',
      token: null,
      count: 3,
      active: true,
    });
  });
});
