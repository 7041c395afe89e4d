/**
 * Login passwords, hashed with scrypt (node:crypto) in a self-describing string `scrypt$N$r$p$salt$hash` so the cost
 * can be raised later without breaking stored hashes.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt cost N = 2^15 with r 8: about 32 MiB and tens of milliseconds per hash, OWASP's recommended minimum. */
const COST = 2 ** 15;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
/** Memory ceiling scrypt may use: 128 × N × r bytes plus headroom (Node's default of 32 MiB is just too small). */
const MAX_MEMORY = 64 * 1024 * 1024;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;
/** Shortest password accepted at sign-up (NIST SP 800-63B asks for at least 8). */
export const PASSWORD_MIN_LENGTH = 8;
/** Longest password accepted: beyond it hashing is just work for an attacker to make us do. */
export const PASSWORD_MAX_LENGTH = 256;

function derive(password: string, salt: Buffer, options: ScryptOptions, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, { N: COST, r: BLOCK_SIZE, p: PARALLELISM, maxmem: MAX_MEMORY }, KEY_LENGTH);
  return ['scrypt', COST, BLOCK_SIZE, PARALLELISM, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await derive(
    password,
    Buffer.from(salt, 'base64'),
    { N: Number(n), r: Number(r), p: Number(p), maxmem: MAX_MEMORY },
    expected.length,
  );
  return timingSafeEqual(key, expected);
}

/** A hash of nothing anyone knows: checked when the e-mail is unknown, so both answers take as long. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}
