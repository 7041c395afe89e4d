/**
 * The tokens that authorise a call's media stream (docs/architecture.md §3 step 2). The engine answers a dispatch with one;
 * the control plane puts it in the stream URL of the carrier's answer XML (`<mediaUrl>/media/<carrier>/<token>`);
 * the carrier presents it when it opens the stream.
 *
 *   token = base64url(callId) "." expiry (ms since the epoch, base 36) "." nonce (96 random bits, base64url)
 *           "." base64url(HMAC-SHA256(secret, "v1." + the three parts before it))
 *
 * The MAC binds the token to its call and its expiry, so a token cannot be forged, altered or extended without
 * the secret; the nonce makes each dispatch's token unique. The secret is 32 random bytes made when the engine
 * starts (a restarted engine has no pending calls, so its old tokens mean nothing anyway), or a configured one.
 * Checking the MAC and expiry needs no state; single use does: the engine keeps each pending call's token until
 * its stream claims it, and remembers claimed tokens until they expire, so a second use is told apart from a
 * token it never issued.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** Bytes of a generated secret: HMAC-SHA256's block-size worth of strength is 32. */
export const STREAM_TOKEN_SECRET_BYTES = 32;
/** A configured secret shorter than this is refused: a guessable key makes every token forgeable. */
const MIN_SECRET_BYTES = 16;
/** Random bytes in each token. */
const NONCE_BYTES = 12;
/** Longest token read, characters: a real one is ~100; the bound keeps junk from costing an HMAC. */
const MAX_TOKEN_CHARS = 512;
const VERSION = 'v1';

/** Why a token was refused. */
export type StreamTokenRefusal = 'malformed' | 'forged' | 'expired' | 'reused' | 'unknown';

export type TokenCheck = { ok: true; callId: string; expiresAt: number } | { ok: false; reason: StreamTokenRefusal };

export class StreamTokens {
  readonly #secret: Buffer;
  readonly #now: () => number;

  /**
   * @param secret the HMAC key (at least 16 bytes); 32 random bytes when omitted
   * @param now the clock, ms since the epoch (tests move it)
   */
  constructor(secret: Uint8Array = randomBytes(STREAM_TOKEN_SECRET_BYTES), now: () => number = Date.now) {
    if (secret.length < MIN_SECRET_BYTES)
      throw new RangeError(`a stream token secret needs at least ${MIN_SECRET_BYTES} bytes`);
    this.#secret = Buffer.from(secret);
    this.#now = now;
  }

  /** A token for `callId` that expires `ttlMs` from now. */
  issue(callId: string, ttlMs: number): { token: string; expiresAt: number } {
    const expiresAt = this.#now() + ttlMs;
    const body = `${Buffer.from(callId, 'utf8').toString('base64url')}.${expiresAt.toString(36)}.${randomBytes(NONCE_BYTES).toString('base64url')}`;
    return { token: `${body}.${this.#mac(body).toString('base64url')}`, expiresAt };
  }

  /** Whether `token` is one of ours, unaltered and unexpired: the call it names, or why not. Stateless. */
  check(token: string): TokenCheck {
    if (token.length > MAX_TOKEN_CHARS) return { ok: false, reason: 'malformed' };
    const parts = token.split('.');
    if (parts.length !== 4 || parts.some((part) => !/^[A-Za-z0-9_-]+$/.test(part)))
      return { ok: false, reason: 'malformed' };
    const [callPart, expiryPart, , macPart] = parts as [string, string, string, string];
    const mac = Buffer.from(macPart, 'base64url');
    const expected = this.#mac(parts.slice(0, 3).join('.'));
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) return { ok: false, reason: 'forged' };
    const expiresAt = parseInt(expiryPart, 36);
    if (!Number.isSafeInteger(expiresAt) || this.#now() >= expiresAt) return { ok: false, reason: 'expired' };
    return { ok: true, callId: Buffer.from(callPart, 'base64url').toString('utf8'), expiresAt };
  }

  #mac(body: string): Buffer {
    return createHmac('sha256', this.#secret).update(`${VERSION}.${body}`).digest();
  }
}
