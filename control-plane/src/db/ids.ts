import { randomBytes } from 'node:crypto';

/** Every record id: 24 lower-case hex characters, the format the spec gives call records. */
export const ID_PATTERN = '^[0-9a-f]{24}$';
const ID_REGEX = new RegExp(ID_PATTERN);

/**
 * A new record id: 4 bytes of Unix seconds then 8 random bytes, so ids sort roughly by creation time (friendly to
 * B-tree indexes) and cannot be guessed.
 */
export function newId(): string {
  const id = Buffer.alloc(12);
  id.writeUInt32BE(Math.floor(Date.now() / 1000) >>> 0, 0);
  randomBytes(8).copy(id, 4);
  return id.toString('hex');
}

export function isId(value: unknown): value is string {
  return typeof value === 'string' && ID_REGEX.test(value);
}
