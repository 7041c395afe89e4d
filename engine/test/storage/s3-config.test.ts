/**
 * The recordings bucket's variables: unset is the local folder; a bucket needs both keys; the endpoint decides the
 * default addressing; every mistake names its variable.
 */
import { describe, expect, it } from 'vitest';
import { readRecordingsBucket, StorageConfigError } from '../../src/storage/s3-config.ts';

const keys = { PARLEY_S3_ACCESS_KEY_ID: 'AKIAEXAMPLE', PARLEY_S3_SECRET_ACCESS_KEY: 'secret' };

describe('the recordings bucket configuration', () => {
  it('is absent without PARLEY_RECORDINGS_BUCKET', () => {
    expect(readRecordingsBucket({})).toBeUndefined();
    expect(readRecordingsBucket({ PARLEY_RECORDINGS_BUCKET: '  ' })).toBeUndefined();
  });

  it('defaults to AWS, us-east-1 and virtual-host addressing', () => {
    expect(readRecordingsBucket({ PARLEY_RECORDINGS_BUCKET: 's3://call-audio', ...keys })).toEqual({
      bucket: 'call-audio',
      prefix: '',
      endpoint: 'https://s3.us-east-1.amazonaws.com',
      region: 'us-east-1',
      accessKeyId: 'AKIAEXAMPLE',
      secretAccessKey: 'secret',
      forcePathStyle: false,
    });
    expect(
      readRecordingsBucket({ PARLEY_RECORDINGS_BUCKET: 's3://call-audio', PARLEY_S3_REGION: 'eu-west-2', ...keys })
        ?.endpoint,
    ).toBe('https://s3.eu-west-2.amazonaws.com');
  });

  it('reads a prefix, an endpoint (path-style by default there) and an explicit addressing style', () => {
    const minio = readRecordingsBucket({
      PARLEY_RECORDINGS_BUCKET: 's3://recordings/parley/prod/',
      PARLEY_S3_ENDPOINT: 'http://127.0.0.1:9000/',
      ...keys,
    });
    expect(minio).toMatchObject({
      bucket: 'recordings',
      prefix: 'parley/prod',
      endpoint: 'http://127.0.0.1:9000',
      forcePathStyle: true,
    });
    const virtual = readRecordingsBucket({
      PARLEY_RECORDINGS_BUCKET: 's3://recordings',
      PARLEY_S3_ENDPOINT: 'https://storage.example.com',
      PARLEY_S3_FORCE_PATH_STYLE: 'false',
      ...keys,
    });
    expect(virtual?.forcePathStyle).toBe(false);
    expect(
      readRecordingsBucket({ PARLEY_RECORDINGS_BUCKET: 's3://recordings', PARLEY_S3_FORCE_PATH_STYLE: '1', ...keys })
        ?.forcePathStyle,
    ).toBe(true);
  });

  it('names the variable of a half-configured or wrong bucket', () => {
    const wrong = (env: Record<string, string>, variable: string, message: RegExp) => {
      const error = (() => {
        try {
          readRecordingsBucket(env);
        } catch (e) {
          return e;
        }
      })();
      expect(error, JSON.stringify(env)).toBeInstanceOf(StorageConfigError);
      expect(error).toMatchObject({ variable });
      expect((error as Error).message).toMatch(message);
    };
    wrong(
      { PARLEY_RECORDINGS_BUCKET: 's3://recordings' },
      'PARLEY_S3_ACCESS_KEY_ID',
      /^PARLEY_S3_ACCESS_KEY_ID is required/,
    );
    wrong(
      { PARLEY_RECORDINGS_BUCKET: 's3://recordings', PARLEY_S3_ACCESS_KEY_ID: 'a' },
      'PARLEY_S3_SECRET_ACCESS_KEY',
      /^PARLEY_S3_SECRET_ACCESS_KEY is required/,
    );
    wrong(
      { PARLEY_S3_SECRET_ACCESS_KEY: 'secret' },
      'PARLEY_RECORDINGS_BUCKET',
      /required when PARLEY_S3_SECRET_ACCESS_KEY is set/,
    );
    wrong({ PARLEY_RECORDINGS_BUCKET: 'recordings', ...keys }, 'PARLEY_RECORDINGS_BUCKET', /s3:\/\/<bucket>/);
    wrong(
      { PARLEY_RECORDINGS_BUCKET: 's3://Recordings_Bucket', ...keys },
      'PARLEY_RECORDINGS_BUCKET',
      /not a bucket name/,
    );
    wrong({ PARLEY_RECORDINGS_BUCKET: 's3://recordings/a/../b', ...keys }, 'PARLEY_RECORDINGS_BUCKET', /prefix/);
    wrong(
      { PARLEY_RECORDINGS_BUCKET: 's3://recordings', PARLEY_S3_ENDPOINT: 'minio:9000', ...keys },
      'PARLEY_S3_ENDPOINT',
      /http\(s\) URL/,
    );
    wrong(
      { PARLEY_RECORDINGS_BUCKET: 's3://recordings', PARLEY_S3_REGION: 'EU West', ...keys },
      'PARLEY_S3_REGION',
      /region/,
    );
    wrong(
      { PARLEY_RECORDINGS_BUCKET: 's3://recordings', PARLEY_S3_FORCE_PATH_STYLE: 'yes', ...keys },
      'PARLEY_S3_FORCE_PATH_STYLE',
      /true or false/,
    );
  });
});
