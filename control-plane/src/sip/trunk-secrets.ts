/**
 * A SIP trunk's digest password at rest (docs/architecture.md §7.7): a ciphertext of the key ring bound to the
 * organisation and the trunk, opened only to hand it to the SIP gateway in a dial request.
 */
import { ApiError } from '../errors.ts';
import { SecretError, type KeyRing } from '../secrets/key-ring.ts';

const context = (organisationId: string, trunkId: string) => `sip-trunk:${organisationId}:${trunkId}`;

function requireRing(keyRing: KeyRing | undefined): KeyRing {
  if (!keyRing)
    throw new ApiError('unavailable', 'Secrets at rest are not configured on this server (PARLEY_SECRET_KEYS)');
  return keyRing;
}

export function sealTrunkPassword(
  keyRing: KeyRing | undefined,
  organisationId: string,
  trunkId: string,
  password: string,
): string {
  return requireRing(keyRing).encrypt(password, context(organisationId, trunkId));
}

/** The password in clear; 500 when it does not open (a key dropped from PARLEY_SECRET_KEYS: the operator's problem). */
export function openTrunkPassword(
  keyRing: KeyRing | undefined,
  organisationId: string,
  trunkId: string,
  sealed: string,
): string {
  try {
    return requireRing(keyRing).decrypt(sealed, context(organisationId, trunkId));
  } catch (error) {
    if (!(error instanceof SecretError)) throw error;
    throw new ApiError('internal', 'The stored SIP trunk password could not be decrypted', { cause: error });
  }
}
