/** PKCE (RFC 7636), S256 only: OAuth 2.1 and the MCP authorization spec refuse `plain`. */
import { createHash } from 'node:crypto';

/** RFC 7636 §4.1: a verifier is 43 to 128 characters of [A-Z a-z 0-9 - . _ ~]. */
const VERIFIER_PATTERN = /^[A-Za-z0-9\-._~]{43,128}$/;
/** An S256 challenge is the base64url of a SHA-256: 43 characters. */
export const CHALLENGE_PATTERN = /^[A-Za-z0-9\-_]{43}$/;

export function challengeOf(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

export function verifierMatches(verifier: string, challenge: string): boolean {
  return VERIFIER_PATTERN.test(verifier) && challengeOf(verifier) === challenge;
}
