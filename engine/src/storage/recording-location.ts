/**
 * Where a call's recording is, as the `recording` event says and call_records.recording_path keeps it:
 *
 *   `<organisationId>/<callId>.ogg`             a key of the local recordings folder (the default, unchanged)
 *   `s3://<bucket>/<prefix>/<organisationId>/<callId>.ogg`   an object in the recordings bucket
 *
 * A recording configured for a bucket whose upload failed keeps the local form: it is still on the engine's disk.
 * The engine writes these (recording-storage.ts); the control plane reads them back through RecordingStores.
 */
import { LocalObjectStore } from './local-object-store.ts';
import { checkObjectKey, type ObjectStore } from './object-store.ts';
import type { S3BucketConfig } from './s3-config.ts';
import { S3ObjectStore } from './s3-object-store.ts';

const BUCKET_SCHEME = 's3://';

/** The recording path of `key` in `bucket`. */
export function bucketRecordingPath(bucket: string, key: string): string {
  return `${BUCKET_SCHEME}${bucket}/${key}`;
}

/** A recording path's parts: `bucket` is undefined for a key of the local folder. */
export function parseRecordingPath(recordingPath: string): { bucket: string | undefined; key: string } {
  if (!recordingPath.startsWith(BUCKET_SCHEME)) return { bucket: undefined, key: recordingPath };
  const rest = recordingPath.slice(BUCKET_SCHEME.length);
  const slash = rest.indexOf('/');
  return slash < 0 ? { bucket: rest, key: '' } : { bucket: rest.slice(0, slash), key: rest.slice(slash + 1) };
}

/** The object `key` of a bucket recording gets: the configured prefix, then the local key. */
export function bucketKey(prefix: string, key: string): string {
  return prefix ? `${prefix}/${key}` : key;
}

export interface RecordingStoresOptions {
  /** The local recordings folder (a shared volume when the control plane runs apart from the engines). */
  recordingsDir: string | undefined;
  /** The recordings bucket, when configured. */
  recordingsBucket: S3BucketConfig | undefined;
}

/** Reads recording paths back: which store holds a recording, and under which key. */
export class RecordingStores {
  readonly #local: LocalObjectStore | undefined;
  readonly #bucket: S3ObjectStore | undefined;

  constructor(options: RecordingStoresOptions) {
    this.#local = options.recordingsDir ? new LocalObjectStore(options.recordingsDir) : undefined;
    this.#bucket = options.recordingsBucket ? new S3ObjectStore(options.recordingsBucket) : undefined;
  }

  /**
   * The store and key of `recordingPath`; undefined when this process cannot reach it: no local folder, a bucket
   * other than the configured one (its credentials are not ours), or a key that is not a plain relative name.
   */
  locate(recordingPath: string): { store: ObjectStore; key: string } | undefined {
    const { bucket, key } = parseRecordingPath(recordingPath);
    const store = bucket === undefined ? this.#local : bucket === this.#bucket?.bucket ? this.#bucket : undefined;
    if (!store) return undefined;
    try {
      return { store, key: checkObjectKey(key) };
    } catch {
      return undefined;
    }
  }
}
