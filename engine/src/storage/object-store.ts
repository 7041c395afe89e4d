/**
 * Where finished files (call recordings) are kept: a local folder by default, an S3-compatible bucket when one is
 * configured. Both speak this one interface, so the engine that writes a recording and the control plane that
 * serves it never care which it is. Keys are `/`-separated relative names (`<organisationId>/<callId>.ogg`).
 */
import type { Readable } from 'node:stream';
import { ObjectStoreError } from './storage-error.ts';

/**
 * What to store: a finished file on local disk (re-readable, so an upload can be retried), bytes in memory, or a
 * stream of known length (read once: a failed put of a stream cannot be retried with the same stream).
 */
export type ObjectSource = { file: string } | { stream: Readable; length: number } | Uint8Array;

/** Bytes `start` to `end` of an object, both inclusive (as in HTTP's Range and Content-Range). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface StoredObjectInfo {
  /** The whole object's length, bytes. */
  size: number;
  contentType: string | undefined;
}

export interface StoredObject extends StoredObjectInfo {
  /** The bytes asked for; destroy it to stop reading early (a client that went away). */
  body: Readable;
  /** The part `body` carries; undefined: all of it. */
  range: ByteRange | undefined;
}

export interface ObjectStore {
  /** Where the objects are, for logs and messages: `s3://<bucket>` or the folder. Never holds a secret. */
  readonly location: string;
  /** Stores `source` under `key`, replacing what was there. The object appears whole or not at all. */
  put(key: string, source: ObjectSource, options?: { contentType?: string }): Promise<void>;
  /** The object's size and type; undefined when there is no such object. */
  head(key: string): Promise<StoredObjectInfo | undefined>;
  /**
   * The object's bytes, all of them or `range` (which must lie inside the object: ask `head` for its size first);
   * undefined when there is no such object.
   */
  get(key: string, range?: ByteRange): Promise<StoredObject | undefined>;
  /** Removes the object; removing one that does not exist is not an error. */
  delete(key: string): Promise<void>;
}

/** A key's longest length, bytes: S3's own limit, so a key that works locally works in a bucket too. */
const MAX_KEY_BYTES = 1024;

/**
 * Refuses a key that is not a plain relative name: empty, absolute, with `.`/`..` or empty segments, backslashes or
 * control characters. A key is written by an engine and read back from the database, so it is checked at both ends.
 */
export function checkObjectKey(key: string): string {
  const problem = keyProblem(key);
  // A bug or a tampered record, never worth retrying.
  if (problem) throw new ObjectStoreError('invalid_request', `object key "${key.slice(0, 80)}" ${problem}`);
  return key;
}

function keyProblem(key: string): string | undefined {
  if (key.length === 0) return 'is empty';
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) return `is longer than ${MAX_KEY_BYTES} bytes`;
  if (/[\u0000-\u001f\u007f\\]/.test(key)) return 'holds a control character or a backslash';
  const segments = key.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..'))
    return 'must be relative, without empty, "." or ".." segments';
  return undefined;
}
