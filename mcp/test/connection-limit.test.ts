import { describe, expect, it } from 'vitest';
import { ConnectionLimit, WINDOW_MS } from '../src/http/connection-limit.ts';

describe('the per-connection limit', () => {
  it('counts each token in its own one-minute window', () => {
    let now = 1_000_000;
    const limit = new ConnectionLimit(2, () => now);
    expect([limit.take('a').allowed, limit.take('a').allowed, limit.take('a').allowed]).toEqual([true, true, false]);
    expect(limit.take('b').allowed).toBe(true);
    now += 15_000;
    expect(limit.take('a')).toEqual({ allowed: false, retryAfterSeconds: 45 });
    now += WINDOW_MS - 15_000;
    expect(limit.take('a').allowed).toBe(true);
  });
});
