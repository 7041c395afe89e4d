/** Postgres error classes by SQLSTATE code and the client's connection error codes (never by message text). */
import postgres from 'postgres';

export function isUniqueViolation(error: unknown): boolean {
  return error instanceof postgres.PostgresError && error.code === '23505';
}

export function isForeignKeyViolation(error: unknown): boolean {
  return error instanceof postgres.PostgresError && error.code === '23503';
}

/**
 * The client's own codes for a connection that could not be made or was lost (postgres.js sets `code` on these
 * errors), and the socket errors beneath them.
 */
const UNREACHABLE_CODES = new Set([
  'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED',
  'CONNECTION_DESTROYED',
  'CONNECTION_ENDED',
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'ETIMEDOUT',
]);
/** SQLSTATEs of a server going away or not taking connections: shutting down (57P01–57P03), class 08 connection. */
const UNAVAILABLE_SQLSTATE = /^(?:08...|57P0[123])$/;

/**
 * Whether `error` says the database cannot be reached now, rather than that a query was wrong. Only the error a
 * query threw is looked at, not deeper causes: a carrier's or a vendor's refused connection arrives wrapped (fetch's
 * TypeError, a CarrierError), while postgres.js throws its connection errors (and the socket's) as they are.
 */
export function isDatabaseUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return error instanceof postgres.PostgresError ? UNAVAILABLE_SQLSTATE.test(code) : UNREACHABLE_CODES.has(code);
}
