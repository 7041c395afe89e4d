/**
 * Secrets at rest (docs/architecture.md §7.7): AES-256-GCM under keys from PARLEY_SECRET_KEYS (`id:base64key,…`). The first
 * key encrypts; every key decrypts, chosen by the key id written beside the ciphertext, so a key is rotated by
 * putting a new one first and keeping the old one until nothing is encrypted under it any more.
 *
 * A ciphertext is one string, `enc:v1:<key id>:<iv>:<ciphertext and tag>` (base64url), so it fits any text or
 * JSON column. Each is bound to a context (GCM's associated data, e.g. the owning organisation): it decrypts only
 * under the same context, so a ciphertext copied to another organisation's record is refused, not revealed.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX = 'enc:v1:';
const ALGORITHM = 'aes-256-gcm';
/** AES-256 key length, bytes. */
export const KEY_BYTES = 32;
/** GCM's recommended nonce length, bytes: random 96-bit nonces are safe for 2^32 messages per key. */
const IV_BYTES = 12;
/** Full-length GCM tag, bytes: shorter tags weaken forgery resistance for nothing. */
const TAG_BYTES = 16;
export const KEY_ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

export type SecretErrorCode = 'invalid_keys' | 'malformed' | 'unknown_key' | 'undecryptable';

/** Why a key list could not be read or a ciphertext could not be opened. Never carries key material. */
export class SecretError extends Error {
  override name = 'SecretError';
  readonly code: SecretErrorCode;
  readonly retryable = false;

  constructor(code: SecretErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
  }
}

interface RingKey {
  id: string;
  key: Buffer;
}

export class KeyRing {
  readonly #keys: readonly RingKey[];

  private constructor(keys: readonly RingKey[]) {
    if (keys.length === 0) throw new SecretError('invalid_keys', 'a key ring needs at least one key');
    this.#keys = keys;
  }

  /**
   * Reads `id:base64key,…` (PARLEY_SECRET_KEYS). Each key is 32 bytes in base64 or base64url; ids are unique,
   * 1–32 letters, digits, `_` or `-`.
   */
  static parse(text: string): KeyRing {
    const keys: RingKey[] = [];
    for (const entry of text
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean)) {
      const colon = entry.indexOf(':');
      const id = colon > 0 ? entry.slice(0, colon) : '';
      if (!KEY_ID_PATTERN.test(id)) {
        throw new SecretError('invalid_keys', 'each key is written id:base64key, the id 1–32 letters, digits, _ or -');
      }
      const material = entry.slice(colon + 1);
      const key = Buffer.from(material, material.includes('-') || material.includes('_') ? 'base64url' : 'base64');
      if (key.length !== KEY_BYTES)
        throw new SecretError('invalid_keys', `key "${id}" must be ${KEY_BYTES} bytes (base64 of 32 random bytes)`);
      if (keys.some((k) => k.id === id)) throw new SecretError('invalid_keys', `key id "${id}" is listed twice`);
      keys.push({ id, key });
    }
    return new KeyRing(keys);
  }

  /** A ring of one new random key, in the `id:base64key` form parse() reads. */
  static generate(id = 'local'): { ring: KeyRing; text: string } {
    const text = `${id}:${randomBytes(KEY_BYTES).toString('base64')}`;
    return { ring: KeyRing.parse(text), text };
  }

  /** The id of the key that encrypts. */
  get primaryKeyId(): string {
    return this.#keys[0]!.id;
  }

  get keyIds(): string[] {
    return this.#keys.map((k) => k.id);
  }

  /** @param context what the secret belongs to (associated data): decrypting needs the same context */
  encrypt(plaintext: string, context: string): string {
    const { id, key } = this.#keys[0]!;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}${id}:${iv.toString('base64url')}:${sealed.toString('base64url')}`;
  }

  decrypt(ciphertext: string, context: string): string {
    const parts = parseCiphertext(ciphertext);
    const ringKey = this.#keys.find((k) => k.id === parts.keyId);
    if (!ringKey) throw new SecretError('unknown_key', `no key "${parts.keyId}" is configured in PARLEY_SECRET_KEYS`);
    try {
      const decipher = createDecipheriv(ALGORITHM, ringKey.key, parts.iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(parts.sealed.subarray(parts.sealed.length - TAG_BYTES));
      const body = parts.sealed.subarray(0, parts.sealed.length - TAG_BYTES);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch (error) {
      throw new SecretError('undecryptable', 'the ciphertext was altered, or belongs to another context', {
        cause: error,
      });
    }
  }

  /**
   * A signature of `message` for one purpose (quote tokens, payment-page links): `<key id>.<HMAC-SHA256>`
   * (base64url), under a key derived from the primary key with HKDF for that purpose alone, so a signature made for
   * one purpose never verifies for another and the encryption keys are never used as MAC keys themselves.
   */
  sign(purpose: string, message: string): string {
    const { id, key } = this.#keys[0]!;
    return `${id}.${mac(key, purpose, message)}`;
  }

  /** Whether `signature` is sign(purpose, message) under any key of the ring (compared in constant time). */
  verify(purpose: string, message: string, signature: string): boolean {
    const dot = signature.indexOf('.');
    const ringKey = dot > 0 ? this.#keys.find((k) => k.id === signature.slice(0, dot)) : undefined;
    if (!ringKey) return false;
    const expected = Buffer.from(mac(ringKey.key, purpose, message), 'utf8');
    const given = Buffer.from(signature.slice(dot + 1), 'utf8');
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  /** Whether the ciphertext was made under another key than the one that encrypts now (worth re-encrypting). */
  needsRotation(ciphertext: string): boolean {
    return parseCiphertext(ciphertext).keyId !== this.primaryKeyId;
  }
}

function mac(key: Buffer, purpose: string, message: string): string {
  const macKey = Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `parley signing: ${purpose}`, KEY_BYTES));
  return createHmac('sha256', macKey).update(message, 'utf8').digest('base64url');
}

/** Whether a value has the form of a ciphertext of this module (it may still fail to decrypt). */
export function isCiphertext(value: string): boolean {
  return value.startsWith(PREFIX);
}

function parseCiphertext(ciphertext: string): { keyId: string; iv: Buffer; sealed: Buffer } {
  const parts = ciphertext.startsWith(PREFIX) ? ciphertext.slice(PREFIX.length).split(':') : [];
  const [keyId, iv, sealed] = parts;
  if (parts.length !== 3 || !keyId || !iv || !sealed || !KEY_ID_PATTERN.test(keyId)) {
    throw new SecretError('malformed', 'not a ciphertext of the form enc:v1:<key id>:<iv>:<ciphertext>');
  }
  const ivBytes = Buffer.from(iv, 'base64url');
  const sealedBytes = Buffer.from(sealed, 'base64url');
  if (ivBytes.length !== IV_BYTES || sealedBytes.length < TAG_BYTES)
    throw new SecretError('malformed', 'the ciphertext is truncated');
  return { keyId, iv: ivBytes, sealed: sealedBytes };
}
