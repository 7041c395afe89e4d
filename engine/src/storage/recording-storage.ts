/**
 * The engine's side of recordings storage. While a call runs its recording is written to a file of the local
 * recordings folder (under PARLEY_DATA_DIR), as it always was. When the call is over and a bucket is configured the
 * finished file is uploaded to `<prefix>/<organisationId>/<callId>.ogg`, and removed from the disk once the bucket
 * holds it. An upload that fails is retried with backoff when the failure may pass (a 5xx, a timeout, a network
 * error); when it still fails, or cannot pass (wrong credentials, no such bucket), the file stays on the disk and
 * the recording's path names it there: a recording is never lost to a bucket's bad day.
 */
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { LocalObjectStore } from './local-object-store.ts';
import type { ObjectStore } from './object-store.ts';
import { bucketKey, bucketRecordingPath } from './recording-location.ts';
import type { S3BucketConfig } from './s3-config.ts';
import { S3ObjectStore } from './s3-object-store.ts';

/**
 * Waits before the 2nd, 3rd and 4th upload attempts, ms: a bucket's brief outage (a restart, throttling) is over
 * within half a minute; a longer one is for an operator to mend, and the file waits on the disk meanwhile.
 */
export const UPLOAD_RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000, 20_000];

export interface RecordingStorageOptions {
  /** The local recordings folder: every recording is written here while its call runs. */
  recordingsDir: string;
  /** Where finished recordings go; undefined: they stay in the folder. */
  bucket?: { store: ObjectStore & { readonly bucket: string }; prefix: string };
  /** Told about uploads that failed, and files that could not be removed. */
  log: (event: string, detail?: object) => void;
  /** Waits between upload attempts; UPLOAD_RETRY_DELAYS_MS by default (tests shorten them). */
  retryDelaysMs?: readonly number[];
}

export class RecordingStorage {
  readonly #local: LocalObjectStore;
  readonly #bucket: RecordingStorageOptions['bucket'];
  readonly #log: RecordingStorageOptions['log'];
  readonly #retryDelaysMs: readonly number[];
  /** Recordings still being finished (closed, then uploaded); a closing role waits for them. */
  readonly #finishing = new Set<Promise<unknown>>();
  /** Stops the waits between attempts once the role closes: no new attempt starts then. */
  readonly #closing = new AbortController();

  constructor(options: RecordingStorageOptions) {
    this.#local = new LocalObjectStore(options.recordingsDir);
    this.#bucket = options.bucket;
    this.#log = options.log;
    this.#retryDelaysMs = options.retryDelaysMs ?? UPLOAD_RETRY_DELAYS_MS;
  }

  /** Storage for `config`: the folder alone, or the folder then the bucket. */
  static forConfig(
    recordingsDir: string,
    bucket: S3BucketConfig | undefined,
    log: RecordingStorageOptions['log'],
  ): RecordingStorage {
    return new RecordingStorage({
      recordingsDir,
      log,
      bucket: bucket && { store: new S3ObjectStore(bucket), prefix: bucket.prefix },
    });
  }

  /** The local file a recording with `key` is written to while its call runs (throws for a key outside the folder). */
  localFile(key: string): string {
    return this.#local.pathOf(key);
  }

  /**
   * Puts the finished recording `key` where it belongs and resolves with its recording path (recording-location.ts):
   * `s3://<bucket>/<prefix>/<key>` once uploaded, else `key` (the local file). Never rejects.
   */
  finish(key: string, contentType: string): Promise<string> {
    const done = this.#finish(key, contentType);
    this.track(done);
    return done;
  }

  /** Makes `close` wait for `work` too (a recording still being closed, before `finish` is called for it). */
  track(work: Promise<unknown>): void {
    const settled = work.then(
      () => {},
      () => {},
    );
    this.#finishing.add(settled);
    void settled.then(() => this.#finishing.delete(settled));
  }

  /** Starts no further upload attempt, then waits for the recordings being finished (an attempt under way ends). */
  async close(): Promise<void> {
    this.#closing.abort();
    while (this.#finishing.size > 0) await Promise.all(this.#finishing);
  }

  async #finish(key: string, contentType: string): Promise<string> {
    const bucket = this.#bucket;
    if (!bucket) return key;
    const file = this.#local.pathOf(key);
    const objectKey = bucketKey(bucket.prefix, key);
    for (let attempt = 1; ; attempt += 1) {
      try {
        await bucket.store.put(objectKey, { file }, { contentType });
        break;
      } catch (error) {
        const delayMs = this.#retryDelaysMs[attempt - 1];
        const retrying = isRetryable(error) && delayMs !== undefined && !this.#closing.signal.aborted;
        this.#log(retrying ? 'recording upload failed, retrying' : 'recording upload failed, kept on local disk', {
          key,
          bucket: bucket.store.location,
          attempt,
          error: String(error),
          ...(retrying ? { retryInMs: delayMs } : { file }),
        });
        if (!retrying || !(await this.#wait(delayMs))) return key;
      }
    }
    await rm(file, { force: true }).catch((error: unknown) => {
      // The bucket has it: a leftover file wastes disk, nothing more.
      this.#log('recording uploaded, local file not removed', { key, file, error: String(error) });
    });
    return bucketRecordingPath(bucket.store.bucket, objectKey);
  }

  /** Waits `ms`; false when the role closed meanwhile (no further attempt then). */
  async #wait(ms: number): Promise<boolean> {
    try {
      await sleep(ms, undefined, { signal: this.#closing.signal });
      return true;
    } catch {
      return false;
    }
  }
}

function isRetryable(error: unknown): boolean {
  return (error as { retryable?: unknown }).retryable === true;
}
