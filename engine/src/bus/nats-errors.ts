/**
 * Maps the NATS client's errors to BusError codes by their class, never by message text. In nats.js v3 a request
 * rejects with a RequestError whose `cause` holds the real reason (NoRespondersError, PermissionViolationError…),
 * while a timeout rejects with a bare TimeoutError, so we walk the cause chain and take the first class we know.
 */
import { errors } from '@nats-io/transport-node';
import { BusError, type BusErrorCode } from './errors.ts';

/** Deepest cause chain we follow: the client nests two levels; the cap only guards against cycles. */
const MAX_CAUSE_DEPTH = 8;

/** Client error classes and the code each one means, most specific first. */
const CODES_BY_CLASS: readonly (readonly [new (...args: never[]) => Error, BusErrorCode])[] = [
  [errors.TimeoutError, 'timeout'],
  [errors.NoRespondersError, 'no_responders'],
  [errors.ClosedConnectionError, 'closed'],
  [errors.DrainingConnectionError, 'closed'],
  [errors.InvalidSubjectError, 'bad_subject'],
  [errors.PermissionViolationError, 'permission_denied'],
  [errors.AuthorizationError, 'permission_denied'],
  [errors.UserAuthenticationExpiredError, 'permission_denied'],
];

/** Errors that only say "the connection went away": whether that is `closed` or `disconnected` depends on us. */
const CONNECTION_LOST_CLASSES: readonly (new (...args: never[]) => Error)[] = [
  errors.RequestError,
  errors.ConnectionError,
];

/**
 * @param err what the NATS client threw or rejected with
 * @param what the operation, for the message (for example `request on v1.stt.open`)
 * @param closing true when this bus is closing or closed, so a dropped connection is our own doing
 */
export function toBusError(err: unknown, what: string, closing: boolean): BusError {
  if (err instanceof BusError) return err;
  const chain = causeChain(err);
  for (const [errorClass, code] of CODES_BY_CLASS) {
    if (chain.some((e) => e instanceof errorClass)) return new BusError(code, describe(code, what), { cause: err });
  }
  if (closing) return new BusError('closed', describe('closed', what), { cause: err });
  if (chain.some((e) => CONNECTION_LOST_CLASSES.some((c) => e instanceof c))) {
    return new BusError('disconnected', describe('disconnected', what), { cause: err });
  }
  return new BusError('internal', describe('internal', what), { cause: err });
}

function causeChain(err: unknown): Error[] {
  const chain: Error[] = [];
  for (let e = err; e instanceof Error && chain.length < MAX_CAUSE_DEPTH; e = e.cause) chain.push(e);
  return chain;
}

function describe(code: BusErrorCode, what: string): string {
  switch (code) {
    case 'timeout':
      return `${what}: no answer in time`;
    case 'no_responders':
      return `${what}: no subscriber on the subject`;
    case 'closed':
      return `${what}: the bus is closed`;
    case 'bad_subject':
      return `${what}: invalid subject`;
    case 'permission_denied':
      return `${what}: the NATS server denied permission`;
    case 'disconnected':
      return `${what}: the connection to the NATS server was lost`;
    case 'payload_too_large':
      return `${what}: payload too large`;
    case 'internal':
      return `${what}: the NATS client failed`;
  }
}
