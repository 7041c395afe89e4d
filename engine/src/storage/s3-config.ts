/**
 * The recordings bucket, as operators configure it (docs/architecture.md §2; README "Configuration"):
 *
 *   PARLEY_RECORDINGS_BUCKET     `s3://<bucket>/<optional prefix>`; unset: recordings stay in the local folder
 *   PARLEY_S3_ENDPOINT           e.g. `http://127.0.0.1:9000` (MinIO); default `https://s3.<region>.amazonaws.com`
 *   PARLEY_S3_REGION             default `us-east-1`
 *   PARLEY_S3_ACCESS_KEY_ID, PARLEY_S3_SECRET_ACCESS_KEY   required with a bucket
 *   PARLEY_S3_FORCE_PATH_STYLE   `<endpoint>/<bucket>/<key>` (true) or `<bucket>.<endpoint host>/<key>` (false);
 *                                default true when an endpoint is given (MinIO and most S3-compatible servers), else false
 *
 * Read by the `parley` command's configuration (control-plane/src/config.ts) for both the engine, which uploads, and
 * the control plane, which serves; a half-configured bucket stops the start with an error naming the variable.
 */

export interface S3BucketConfig {
  bucket: string;
  /** Put before every key, without slashes at either end; '' for none. */
  prefix: string;
  /** Base URL of the S3 API, without a trailing slash. */
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Address objects as `<endpoint>/<bucket>/<key>` (true) or `<bucket>.<endpoint host>/<key>` (false). */
  forcePathStyle: boolean;
}

/** A recordings-bucket variable that is missing or wrong; `variable` names it. */
export class StorageConfigError extends Error {
  override name = 'StorageConfigError';
  readonly variable: string;

  constructor(variable: string, message: string) {
    super(`${variable} ${message}`);
    this.variable = variable;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const S3_VARIABLES = [
  'PARLEY_S3_ENDPOINT',
  'PARLEY_S3_REGION',
  'PARLEY_S3_ACCESS_KEY_ID',
  'PARLEY_S3_SECRET_ACCESS_KEY',
  'PARLEY_S3_FORCE_PATH_STYLE',
] as const;

/** The recordings bucket `env` configures; undefined when PARLEY_RECORDINGS_BUCKET is unset (the local folder). */
export function readRecordingsBucket(env: Env): S3BucketConfig | undefined {
  const location = nonEmpty(env.PARLEY_RECORDINGS_BUCKET);
  if (!location) {
    // An S3 setting with no bucket is a bucket variable misspelt or forgotten: recordings would silently stay local.
    const stray = S3_VARIABLES.find((name) => nonEmpty(env[name]) !== undefined);
    if (stray)
      throw new StorageConfigError(
        'PARLEY_RECORDINGS_BUCKET',
        `is required when ${stray} is set (unset both to keep recordings in the local folder)`,
      );
    return undefined;
  }
  const { bucket, prefix } = parseBucketLocation(location);
  const region = nonEmpty(env.PARLEY_S3_REGION) ?? 'us-east-1';
  if (!/^[a-z0-9-]{1,64}$/.test(region))
    throw new StorageConfigError('PARLEY_S3_REGION', `"${region}" is not a region name (e.g. us-east-1)`);
  const endpoint = nonEmpty(env.PARLEY_S3_ENDPOINT);
  if (endpoint !== undefined && !/^https?:\/\/[^/\s]+\/?$/i.test(endpoint)) {
    throw new StorageConfigError(
      'PARLEY_S3_ENDPOINT',
      'must be an http(s) URL without a path, e.g. http://127.0.0.1:9000',
    );
  }
  const accessKeyId = nonEmpty(env.PARLEY_S3_ACCESS_KEY_ID);
  if (!accessKeyId)
    throw new StorageConfigError('PARLEY_S3_ACCESS_KEY_ID', 'is required with PARLEY_RECORDINGS_BUCKET');
  const secretAccessKey = nonEmpty(env.PARLEY_S3_SECRET_ACCESS_KEY);
  if (!secretAccessKey)
    throw new StorageConfigError('PARLEY_S3_SECRET_ACCESS_KEY', 'is required with PARLEY_RECORDINGS_BUCKET');
  return {
    bucket,
    prefix,
    endpoint: (endpoint ?? `https://s3.${region}.amazonaws.com`).replace(/\/+$/, ''),
    region,
    accessKeyId,
    secretAccessKey,
    forcePathStyle: readBoolean('PARLEY_S3_FORCE_PATH_STYLE', env.PARLEY_S3_FORCE_PATH_STYLE) ?? endpoint !== undefined,
  };
}

/** `s3://<bucket>/<optional prefix>` → its parts; the bucket name is checked against S3's naming rules. */
export function parseBucketLocation(location: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(location);
  if (!match)
    throw new StorageConfigError(
      'PARLEY_RECORDINGS_BUCKET',
      `"${location}" is not of the form s3://<bucket>/<optional prefix>`,
    );
  const bucket = match[1]!;
  // S3's rules for new buckets: 3–63 lower-case letters, digits, dots and hyphens, a letter or digit at each end.
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket) || bucket.includes('..')) {
    throw new StorageConfigError(
      'PARLEY_RECORDINGS_BUCKET',
      `"${bucket}" is not a bucket name (3–63 lower-case letters, digits, dots and hyphens)`,
    );
  }
  const prefix = (match[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefix.split('/').some((segment) => segment === '.' || segment === '..' || (prefix !== '' && segment === ''))) {
    throw new StorageConfigError(
      'PARLEY_RECORDINGS_BUCKET',
      `prefix "${prefix}" must be plain folder names separated by single slashes`,
    );
  }
  return { bucket, prefix };
}

function readBoolean(name: string, value: string | undefined): boolean | undefined {
  const text = nonEmpty(value)?.toLowerCase();
  if (text === undefined) return undefined;
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  throw new StorageConfigError(name, `must be true or false, not "${value}"`);
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}
