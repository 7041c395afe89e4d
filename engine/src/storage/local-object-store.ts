/**
 * The default object store: files in a local folder (PARLEY_DATA_DIR/recordings), a key being the file's path
 * relative to it. A key that would lead outside the folder is refused, whoever wrote it.
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  checkObjectKey,
  type ByteRange,
  type ObjectSource,
  type ObjectStore,
  type StoredObject,
  type StoredObjectInfo,
} from './object-store.ts';
import { ObjectStoreError } from './storage-error.ts';

export class LocalObjectStore implements ObjectStore {
  readonly location: string;
  readonly #root: string;

  constructor(root: string) {
    this.#root = path.resolve(root);
    this.location = this.#root;
  }

  /** The file that holds `key`. Throws (invalid_request) for a key that is not a plain name inside the folder. */
  pathOf(key: string): string {
    checkObjectKey(key);
    const file = path.resolve(this.#root, ...key.split('/'));
    if (!file.startsWith(this.#root + path.sep))
      throw new ObjectStoreError('invalid_request', `object key "${key.slice(0, 80)}" leads outside ${this.#root}`);
    return file;
  }

  async put(key: string, source: ObjectSource): Promise<void> {
    const file = this.pathOf(key);
    if ('file' in source && path.resolve(source.file) === file) return;
    // Written beside its final name, then renamed: a reader never sees half an object.
    const partial = `${file}.${randomBytes(6).toString('hex')}.partial`;
    try {
      await mkdir(path.dirname(file), { recursive: true });
      if (source instanceof Uint8Array) await writeFile(partial, source);
      else if ('file' in source) await copyFile(source.file, partial);
      else {
        await pipeline(source.stream, createWriteStream(partial));
        const written = (await stat(partial)).size;
        if (written !== source.length)
          throw new Error(`the stream gave ${written} bytes, not the ${source.length} announced`);
      }
      await rename(partial, file);
    } catch (error) {
      await rm(partial, { force: true });
      throw ioError(`could not store ${key}`, error);
    }
  }

  async head(key: string): Promise<StoredObjectInfo | undefined> {
    const file = this.pathOf(key);
    try {
      const info = await stat(file);
      return info.isFile() ? { size: info.size, contentType: undefined } : undefined;
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw ioError(`could not read ${key}`, error);
    }
  }

  async get(key: string, range?: ByteRange): Promise<StoredObject | undefined> {
    const file = this.pathOf(key);
    let handle;
    try {
      handle = await open(file, 'r');
    } catch (error) {
      if (isMissing(error) || (error as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
      throw ioError(`could not read ${key}`, error);
    }
    try {
      const info = await handle.stat();
      if (!info.isFile()) {
        await handle.close();
        return undefined;
      }
      if (range && !(range.start >= 0 && range.start <= range.end && range.end < info.size)) {
        throw new ObjectStoreError(
          'invalid_request',
          `bytes ${range.start}-${range.end} are not inside ${key} (${info.size} bytes)`,
        );
      }
      const body = handle.createReadStream(range ? { start: range.start, end: range.end } : {});
      return { body, size: info.size, contentType: undefined, range };
    } catch (error) {
      await handle.close();
      throw error instanceof ObjectStoreError ? error : ioError(`could not read ${key}`, error);
    }
  }

  async delete(key: string): Promise<void> {
    const file = this.pathOf(key);
    try {
      await rm(file, { force: true });
    } catch (error) {
      throw ioError(`could not delete ${key}`, error);
    }
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function ioError(message: string, cause: unknown): ObjectStoreError {
  return new ObjectStoreError('internal', `${message}: ${(cause as Error).message ?? String(cause)}`, { cause });
}
