import { errors } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { BusError } from './errors.ts';
import { toBusError } from './nats-errors.ts';

describe('toBusError', () => {
  it.each([
    ['a bare TimeoutError', new errors.TimeoutError(), 'timeout', true],
    [
      'a RequestError caused by NoRespondersError',
      new errors.RequestError('x', { cause: new errors.NoRespondersError('s') }),
      'no_responders',
      true,
    ],
    ['ClosedConnectionError', new errors.ClosedConnectionError(), 'closed', false],
    ['DrainingConnectionError', new errors.DrainingConnectionError(), 'closed', false],
    ['InvalidSubjectError', new errors.InvalidSubjectError('a b'), 'bad_subject', false],
    [
      'a RequestError caused by a permission violation',
      new errors.RequestError('x', { cause: new errors.PermissionViolationError('x', 'publish', 's') }),
      'permission_denied',
      false,
    ],
    ['a RequestError with no known cause', new errors.RequestError('connection disconnected'), 'disconnected', true],
    ['ConnectionError', new errors.ConnectionError('refused'), 'disconnected', true],
    ['an unknown error', new Error('boom'), 'internal', false],
  ])('maps %s to %s', (_, err, code, retryable) => {
    const mapped = toBusError(err, 'test', false);
    expect(mapped).toBeInstanceOf(BusError);
    expect(mapped.code).toBe(code);
    expect(mapped.retryable).toBe(retryable);
    expect(mapped.cause).toBe(err);
  });

  it('reports a lost connection as closed when the bus itself is closing', () => {
    expect(toBusError(new errors.RequestError('connection closed'), 'test', true).code).toBe('closed');
  });

  it('classifies by class even when the message says otherwise', () => {
    const err = new errors.TimeoutError({ cause: new Error('no responders') });
    expect(toBusError(err, 'test', false).code).toBe('timeout');
  });

  it('passes a BusError through unchanged', () => {
    const err = new BusError('closed', 'already mapped');
    expect(toBusError(err, 'test', false)).toBe(err);
  });
});
