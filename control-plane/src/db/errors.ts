/** Postgres error classes by SQLSTATE code (never by message text). */
import postgres from 'postgres';

export function isUniqueViolation(error: unknown): boolean {
  return error instanceof postgres.PostgresError && error.code === '23505';
}

export function isForeignKeyViolation(error: unknown): boolean {
  return error instanceof postgres.PostgresError && error.code === '23503';
}
