/**
 * API key values: `parley_prod_<8-character prefix>_<32 hex>` (spec document 3). The prefix finds the record; only
 * a SHA-256 of the whole value is stored. A plain hash suffices because the secret part carries 128 random bits:
 * there is nothing for a slow password hash to protect against.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const KEY_BRAND = 'parley';
const KEY_PATTERN = /^parley_prod_([a-z0-9]{8})_([0-9a-f]{32})$/;
const PREFIX_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

export interface NewApiKey {
  /** The full secret, shown once. */
  value: string;
  prefix: string;
  hash: string;
  last4: string;
}

export function generateApiKey(): NewApiKey {
  const prefix = randomPrefix();
  const value = `${KEY_BRAND}_prod_${prefix}_${randomBytes(16).toString('hex')}`;
  return { value, prefix, hash: hashApiKey(value), last4: value.slice(-4) };
}

/** The lookup prefix of a well-formed key value, else undefined. */
export function parseApiKey(value: string): { prefix: string } | undefined {
  const match = KEY_PATTERN.exec(value);
  return match ? { prefix: match[1]! } : undefined;
}

export function hashApiKey(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

function randomPrefix(): string {
  // 252 is the largest multiple of 36 below 256: skipping bytes from 252 up keeps every character equally likely.
  let out = '';
  while (out.length < 8) {
    for (const byte of randomBytes(16)) {
      if (byte < 252 && out.length < 8) out += PREFIX_ALPHABET[byte % 36];
    }
  }
  return out;
}
