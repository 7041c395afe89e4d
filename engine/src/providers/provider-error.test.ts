import { describe, expect, it } from 'vitest';
import { isProviderError, PROVIDER_ERROR_CODES, ProviderError } from './provider-error.ts';

describe('ProviderError', () => {
  it('carries retryable from the registry, and names the provider in its message', () => {
    const error = new ProviderError('rate_limited', 'deepgram', 'slow down', { status: 429, retryAfterMs: 1_000 });
    expect(error).toMatchObject({
      code: 'rate_limited',
      retryable: true,
      provider: 'deepgram',
      status: 429,
      retryAfterMs: 1_000,
    });
    expect(error.message).toBe('deepgram: slow down');
    expect(PROVIDER_ERROR_CODES.unauthorized.retryable).toBe(false);
  });

  it('serves the local programs too: a code of theirs, its cause, no status', () => {
    const cause = new Error('ENOENT');
    const error = new ProviderError('provider_unavailable', 'flite', 'flite is not installed', { cause });
    expect(error).toMatchObject({
      code: 'provider_unavailable',
      retryable: false,
      provider: 'flite',
      status: undefined,
      cause,
    });
    expect(isProviderError(error, 'provider_unavailable')).toBe(true);
    expect(isProviderError(error, 'provider_failed')).toBe(false);
  });
});
