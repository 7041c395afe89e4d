import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { StreamTokens } from './stream-tokens.ts';

describe('stream tokens', () => {
  it('name their call until they expire', () => {
    let now = 1_000_000;
    const tokens = new StreamTokens(randomBytes(32), () => now);
    const { token, expiresAt } = tokens.issue('call-ü-1', 60_000);
    expect(expiresAt).toBe(1_060_000);
    expect(token).toMatch(/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+){3}$/);
    expect(tokens.check(token)).toEqual({ ok: true, callId: 'call-ü-1', expiresAt });
    now = 1_059_999;
    expect(tokens.check(token).ok).toBe(true);
    now = 1_060_000;
    expect(tokens.check(token)).toEqual({ ok: false, reason: 'expired' });
  });

  it('are unique per issue, even for one call', () => {
    const tokens = new StreamTokens();
    expect(tokens.issue('c', 1000).token).not.toBe(tokens.issue('c', 1000).token);
  });

  it('refuse any change to any part, and a key that is not theirs', () => {
    const tokens = new StreamTokens(randomBytes(32));
    const { token } = tokens.issue('call-1', 60_000);
    const parts = token.split('.');
    for (let part = 0; part < 4; part += 1) {
      const changed = [...parts];
      const value = changed[part]!;
      changed[part] = (value[0] === 'A' ? 'B' : 'A') + value.slice(1);
      expect(tokens.check(changed.join('.'))).toEqual({ ok: false, reason: 'forged' });
    }
    expect(new StreamTokens(randomBytes(32)).check(token)).toEqual({ ok: false, reason: 'forged' });
  });

  it('call junk malformed without computing anything', () => {
    const tokens = new StreamTokens();
    for (const junk of ['', 'abc', 'a.b.c', 'a.b.c.d.e', 'a.b.c.d/', 'x'.repeat(600), 'a..c.d']) {
      expect(tokens.check(junk)).toEqual({ ok: false, reason: 'malformed' });
    }
  });

  it('refuse a short secret', () => {
    expect(() => new StreamTokens(randomBytes(8))).toThrow(/at least 16 bytes/);
  });
});
