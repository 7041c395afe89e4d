import { describe, expect, it } from 'vitest';
import { codeForStatus, parseRetryAfter, PROVIDER_ERROR_CODES, ProviderError } from './provider-error.ts';

describe('ProviderError', () => {
  it('takes its code from the status, never from a message', () => {
    expect([401, 403, 429, 408, 504, 500, 502, 503, 400, 404, 422, 302].map(codeForStatus)).toEqual([
      'unauthorized',
      'unauthorized',
      'rate_limited',
      'upstream_timeout',
      'upstream_timeout',
      'upstream_failed',
      'upstream_failed',
      'upstream_failed',
      'rejected',
      'rejected',
      'rejected',
      'bad_response',
    ]);
  });

  it('carries retryable from the registry, and names the provider in its message', () => {
    const error = new ProviderError('rate_limited', 'deepgram', 'slow down', { status: 429, retryAfterMs: 1_000 });
    expect(error).toMatchObject({ code: 'rate_limited', retryable: true, provider: 'deepgram', status: 429, retryAfterMs: 1_000 });
    expect(error.message).toBe('deepgram: slow down');
    expect(PROVIDER_ERROR_CODES.unauthorized.retryable).toBe(false);
  });

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
