import { describe, expect, it } from 'vitest';
import { BUS_ERROR_CODES, BusError } from '../src/bus/errors.ts';
import { PROVIDER_ERROR_CODES, ProviderError } from '../src/providers/provider-error.ts';
import { WorkerStreamError } from '../src/workers/client/worker-stream.ts';
import { ERROR_CODES, isErrorCode, knownErrorCode } from '../src/protocol/error-codes.ts';

describe('the engine’s one registry of error codes', () => {
  it('is where the bus and the providers take their codes and retryability from', () => {
    for (const [code, { retryable }] of Object.entries({ ...BUS_ERROR_CODES, ...PROVIDER_ERROR_CODES })) {
      expect(isErrorCode(code), code).toBe(true);
      expect(retryable, code).toBe(ERROR_CODES[code as keyof typeof ERROR_CODES].retryable);
    }
    expect(new BusError('timeout', 'slow').retryable).toBe(true);
    expect(new ProviderError('unauthorized', 'deepgram', 'bad key').retryable).toBe(false);
  });

  it('reads a code a newer peer sent as internal, keeping what the wire said about retrying', () => {
    expect(knownErrorCode('quota_exhausted_v2')).toBe('internal');
    expect(knownErrorCode('rate_limited')).toBe('rate_limited');
    const error = WorkerStreamError.fromWire({ code: 'quota_exhausted_v2', message: 'try later', retryable: true });
    expect(error).toMatchObject({ code: 'internal', retryable: true, message: 'try later' });
    expect(new WorkerStreamError('worker_lost', 'gone').retryable).toBe(true);
  });
});
