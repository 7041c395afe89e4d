/**
 * The login pages' browser session and CSRF protection. The session cookie holds a random token (the database keeps
 * its SHA-256); the CSRF token is a second random cookie that every form repeats in a hidden field (double submit),
 * so a form posted from another site, which cannot read the cookie, is refused. Both cookies are HttpOnly and
 * SameSite=Lax (the host opens the authorize page by a top-level navigation, which Lax allows), Secure and
 * `__Host-` prefixed when the public URL is https.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from '../db/database.ts';
import { deleteSession, insertSession, sessionUser, type LoginUserRow } from './repository.ts';

/** How long a login lasts in the browser: a working day, so connecting a second host later needs no new login. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60_000;
/** How long a CSRF cookie lasts: as long as a session, so a form left open for a while still posts. */
const CSRF_LIFETIME_MS = SESSION_LIFETIME_MS;

export interface CookieNames {
  session: string;
  csrf: string;
  secure: boolean;
}

export function cookieNames(publicUrl: string): CookieNames {
  const secure = publicUrl.startsWith('https://');
  // The __Host- prefix makes browsers refuse the cookie unless it is Secure, host-only and Path=/.
  return secure
    ? { session: '__Host-parley_session', csrf: '__Host-parley_csrf', secure }
    : { session: 'parley_session', csrf: 'parley_csrf', secure };
}

export function serializeCookie(names: CookieNames, name: string, value: string, maxAgeMs: number): string {
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax', `Max-Age=${Math.floor(maxAgeMs / 1000)}`];
  if (names.secure) parts.push('Secure');
  return parts.join('; ');
}

export function parseCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) cookies.set(part.slice(0, at).trim(), part.slice(at + 1).trim());
  }
  return cookies;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** The CSRF token of the browser, or a new one with the Set-Cookie header that gives it. */
export function csrfToken(names: CookieNames, cookies: Map<string, string>): { token: string; setCookie?: string } {
  const existing = cookies.get(names.csrf);
  if (existing && TOKEN_PATTERN.test(existing)) return { token: existing };
  const token = randomBytes(32).toString('base64url');
  return { token, setCookie: serializeCookie(names, names.csrf, token, CSRF_LIFETIME_MS) };
}

/** Whether a posted form repeats the browser's CSRF cookie. */
export function csrfValid(names: CookieNames, cookies: Map<string, string>, posted: string | undefined): boolean {
  const expected = cookies.get(names.csrf);
  if (!expected || !posted || !TOKEN_PATTERN.test(expected)) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(posted);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Starts a session for a user who just logged in or signed up; the Set-Cookie header value. */
export async function startSession(sql: Queryable, names: CookieNames, userId: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await insertSession(sql, sha256(token), userId, SESSION_LIFETIME_MS);
  return serializeCookie(names, names.session, token, SESSION_LIFETIME_MS);
}

export async function currentUser(
  sql: Queryable,
  names: CookieNames,
  cookies: Map<string, string>,
): Promise<LoginUserRow | undefined> {
  const token = cookies.get(names.session);
  return token && TOKEN_PATTERN.test(token) ? sessionUser(sql, sha256(token)) : undefined;
}

/** Ends the browser's session; the Set-Cookie header value that clears it. */
export async function endSession(sql: Queryable, names: CookieNames, cookies: Map<string, string>): Promise<string> {
  const token = cookies.get(names.session);
  if (token && TOKEN_PATTERN.test(token)) await deleteSession(sql, sha256(token));
  return serializeCookie(names, names.session, '', 0);
}
