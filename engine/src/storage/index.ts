/**
 * Recordings storage (engine/package.json `exports` "./storage"): the object-store seam with its local-folder and
 * S3-compatible implementations, the recordings-bucket configuration, and how a recording path names its store.
 * The engine writes recordings through it; the control plane reads them back through it.
 */
export {
  checkObjectKey,
  type ByteRange,
  type ObjectSource,
  type ObjectStore,
  type StoredObject,
  type StoredObjectInfo,
} from './object-store.ts';
export { LocalObjectStore } from './local-object-store.ts';
export {
  S3_REQUEST_TIMEOUT_MS,
  S3_UPLOAD_TIMEOUT_MS,
  S3ObjectStore,
  type S3ObjectStoreOptions,
} from './s3-object-store.ts';
export { ObjectStoreError, STORAGE_ERROR_CODES, type StorageErrorCode } from './storage-error.ts';
export { parseBucketLocation, readRecordingsBucket, StorageConfigError, type S3BucketConfig } from './s3-config.ts';
export {
  bucketKey,
  bucketRecordingPath,
  parseRecordingPath,
  RecordingStores,
  type RecordingStoresOptions,
} from './recording-location.ts';
export {
  EMPTY_PAYLOAD_SHA256,
  signRequest,
  UNSIGNED_PAYLOAD,
  type SigV4Credentials,
  type SigV4Request,
  type SigV4Scope,
  type SignedRequest,
} from './sigv4.ts';
