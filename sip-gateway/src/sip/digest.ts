/**
 * HTTP Digest authentication toward a trunk (RFC 3261 §22, RFC 2617; RFC 7616's SHA-256 when the trunk asks for
 * it): the answer to a 401 WWW-Authenticate or 407 Proxy-Authenticate challenge, with qop=auth when offered.
 */
import { createHash, randomBytes } from 'node:crypto';

export interface DigestChallenge {
  realm: string;
  nonce: string;
  opaque: string | undefined;
  algorithm: 'MD5' | 'SHA-256';
  /** `auth` when the challenge offers it (we never do auth-int). */
  qop: 'auth' | undefined;
}

/** Reads a `Digest …` challenge; undefined for another scheme or a malformed one. */
export function parseChallenge(value: string): DigestChallenge | undefined {
  const match = /^\s*Digest\s+(.*)$/is.exec(value);
  if (!match) return undefined;
  const params: Record<string, string> = {};
  for (const part of match[1]!.matchAll(/([A-Za-z-]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^,\s]+)/g)) {
    params[part[1]!.toLowerCase()] = part[2]!.replace(/^"(.*)"$/s, '$1');
  }
  if (params.realm === undefined || !params.nonce) return undefined;
  const algorithm = (params.algorithm ?? 'MD5').toUpperCase();
  if (algorithm !== 'MD5' && algorithm !== 'SHA-256') return undefined;
  const qops = (params.qop ?? '').split(',').map((q) => q.trim());
  return {
    realm: params.realm,
    nonce: params.nonce,
    opaque: params.opaque,
    algorithm,
    qop: qops.includes('auth') ? 'auth' : undefined,
  };
}

/** The Authorization / Proxy-Authorization value answering `challenge` for `method` on `uri`. */
export function digestAuthorization(
  challenge: DigestChallenge,
  credentials: { username: string; password: string },
  method: string,
  uri: string,
  nonceCount = 1,
  cnonce = randomBytes(8).toString('hex'),
): string {
  const hash = (text: string) =>
    createHash(challenge.algorithm === 'MD5' ? 'md5' : 'sha256')
      .update(text)
      .digest('hex');
  const ha1 = hash(`${credentials.username}:${challenge.realm}:${credentials.password}`);
  const ha2 = hash(`${method}:${uri}`);
  const nc = nonceCount.toString(16).padStart(8, '0');
  const response = challenge.qop
    ? hash(`${ha1}:${challenge.nonce}:${nc}:${cnonce}:${challenge.qop}:${ha2}`)
    : hash(`${ha1}:${challenge.nonce}:${ha2}`);
  const parts = [
    `username="${credentials.username}"`,
    `realm="${challenge.realm}"`,
    `nonce="${challenge.nonce}"`,
    `uri="${uri}"`,
    `response="${response}"`,
    `algorithm=${challenge.algorithm}`,
  ];
  if (challenge.opaque !== undefined) parts.push(`opaque="${challenge.opaque}"`);
  if (challenge.qop) parts.push(`qop=${challenge.qop}`, `nc=${nc}`, `cnonce="${cnonce}"`);
  return `Digest ${parts.join(', ')}`;
}
