/**
 * Where the WAV and OGG writers put their bytes: a file (recordings) or memory (tests, uploads). Appends never block
 * the event loop: a file sink batches them and writes in the background, in order; a write error surfaces on close.
 */
import { open, type FileHandle } from 'node:fs/promises';
import type { ErrorCode } from '../protocol/error-codes.ts';

export interface ByteSink {
  /** Adds bytes at the end. Never blocks and never throws for I/O: errors surface from `close`. */
  append(bytes: Uint8Array): void;
  /** Overwrites bytes already appended, from `position` on (headers whose sizes are known only at the end). */
  patch(position: number, bytes: Uint8Array): void;
  /** Writes out everything, then releases the sink. Rejects with the first error met on the way. */
  close(): Promise<void>;
}

/** Bytes a file sink gathers before writing: 64 KiB is 2 s of 16 kHz PCM16, so a call costs one write every 2 s. */
export const FILE_SINK_BATCH_BYTES = 64 * 1024;
/**
 * Bytes a file sink holds while the disk falls behind: 8 MiB is minutes of a call's audio. Beyond it the sink
 * fails (close rejects) and drops further appends, rather than let a dead disk eat the process's memory.
 */
export const FILE_SINK_MAX_PENDING_BYTES = 8 * 1024 * 1024;

export class FileSinkOverflowError extends Error {
  override name = 'FileSinkOverflowError';
  readonly code: ErrorCode = 'sink_overflow';
  readonly retryable = false;
}

/** An append-only file with header patching; created (or truncated) by `open`. */
export class FileSink implements ByteSink {
  readonly path: string;
  readonly #handle: FileHandle;
  #batch: Uint8Array[] = [];
  #batchBytes = 0;
  /** Bytes appended but not yet on disk (batched or being written). */
  #pendingBytes = 0;
  /** File length once everything appended so far is written. */
  #length = 0;
  #writes: Promise<void> = Promise.resolve();
  #error: unknown;
  #closing: Promise<void> | undefined;

  private constructor(path: string, handle: FileHandle) {
    this.path = path;
    this.#handle = handle;
  }

  /** Creates (or truncates) the file at `path`. */
  static async open(path: string): Promise<FileSink> {
    return new FileSink(path, await open(path, 'w'));
  }

  /** Bytes appended so far. */
  get length(): number {
    return this.#length;
  }

  append(bytes: Uint8Array): void {
    if (this.#error !== undefined || this.#closing) return;
    if (this.#pendingBytes + bytes.length > FILE_SINK_MAX_PENDING_BYTES) {
      this.#error = new FileSinkOverflowError(
        `${this.path}: the disk fell more than ${FILE_SINK_MAX_PENDING_BYTES} bytes behind`,
      );
      return;
    }
    // Copied: the caller may reuse its buffer before the write happens.
    this.#batch.push(new Uint8Array(bytes));
    this.#batchBytes += bytes.length;
    this.#pendingBytes += bytes.length;
    this.#length += bytes.length;
    if (this.#batchBytes >= FILE_SINK_BATCH_BYTES) this.#flushBatch();
  }

  patch(position: number, bytes: Uint8Array): void {
    if (this.#error !== undefined || this.#closing) return;
    if (position < 0 || position + bytes.length > this.#length)
      throw new RangeError('a patch must overwrite bytes already appended');
    this.#flushBatch();
    const copy = new Uint8Array(bytes);
    this.#enqueue(async () => {
      await this.#handle.write(copy, 0, copy.length, position);
    });
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#flushBatch();
      await this.#writes;
      try {
        await this.#handle.close();
      } catch (error) {
        this.#error ??= error;
      }
      if (this.#error !== undefined) throw this.#error;
    })();
    return this.#closing;
  }

  #flushBatch(): void {
    if (this.#batchBytes === 0) return;
    const bytes = Buffer.concat(this.#batch, this.#batchBytes);
    const position = this.#length - this.#batchBytes;
    this.#batch = [];
    this.#batchBytes = 0;
    this.#enqueue(async () => {
      await this.#handle.write(bytes, 0, bytes.length, position);
      this.#pendingBytes -= bytes.length;
    });
  }

  /** Runs writes one after another; after the first failure the rest are skipped and the error kept for close. */
  #enqueue(write: () => Promise<void>): void {
    this.#writes = this.#writes.then(async () => {
      if (this.#error !== undefined) return;
      try {
        await write();
      } catch (error) {
        this.#error = error;
      }
    });
  }
}

/** Bytes kept in memory: for tests, and for recordings uploaded whole. */
export class MemorySink implements ByteSink {
  #chunks: Uint8Array[] = [];
  #length = 0;
  #closed = false;

  get length(): number {
    return this.#length;
  }

  get closed(): boolean {
    return this.#closed;
  }

  append(bytes: Uint8Array): void {
    this.#chunks.push(new Uint8Array(bytes));
    this.#length += bytes.length;
  }

  patch(position: number, bytes: Uint8Array): void {
    if (position < 0 || position + bytes.length > this.#length)
      throw new RangeError('a patch must overwrite bytes already appended');
    const all = this.bytes();
    all.set(bytes, position);
    this.#chunks = [all];
  }

  close(): Promise<void> {
    this.#closed = true;
    return Promise.resolve();
  }

  /** Everything appended so far, patches applied, as one Buffer. */
  bytes(): Buffer {
    return Buffer.concat(this.#chunks, this.#length);
  }
}
