import { describe, expect, it } from 'vitest';
import { codeForStatus, parseRetryAfter } from './error-response.ts';

describe('codeForStatus', () => {
  it('takes the code from the status, never from a message', () => {
    expect([401, 403, 429, 408, 504, 500, 502, 503, 400, 404, 422, 302].map(codeForStatus)).toEqual([
      'unauthorized',
      'unauthorized',
      'rate_limited',
      'upstream_timeout',
      'upstream_timeout',
      'upstream_failed',
      'upstream_failed',
      'upstream_failed',
      'invalid_request',
      'invalid_request',
      'invalid_request',
      'bad_response',
    ]);
  });
});

describe('parseRetryAfter', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3_000);
    expect(parseRetryAfter('0.5', now)).toBe(500);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
