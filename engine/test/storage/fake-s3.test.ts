/**
 * The fake S3 checks signatures as S3 does, so a signer bug fails a test instead of passing against a lenient fake:
 * its verifier accepts AWS's own documented request and refuses a request altered after signing.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { EMPTY_PAYLOAD_SHA256, signRequest } from '../../src/storage/sigv4.ts';
import { startFakeS3 } from '../fakes/index.ts';
import { verifySigV4 } from '../fakes/s3/verify-sigv4.ts';
import {
  DOCUMENTED_CREDENTIAL,
  DOCUMENTED_CREDENTIALS,
  DOCUMENTED_GET_SIGNATURE,
  DOCUMENTED_REGION,
} from './aws-documented-example.ts';

const example = { ...DOCUMENTED_CREDENTIALS, region: DOCUMENTED_REGION };

/** The documented GET Object request of S3's SigV4 examples, as it arrives on the wire. */
function documentedGet(overrides: Record<string, string> = {}): IncomingMessage {
  return {
    method: 'GET',
    url: '/test.txt',
    headers: {
      host: 'examplebucket.s3.amazonaws.com',
      range: 'bytes=0-9',
      'x-amz-content-sha256': EMPTY_PAYLOAD_SHA256,
      'x-amz-date': '20130524T000000Z',
      authorization: `AWS4-HMAC-SHA256 Credential=${DOCUMENTED_CREDENTIAL},SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=${DOCUMENTED_GET_SIGNATURE}`,
      ...overrides,
    },
  } as unknown as IncomingMessage;
}

describe('the fake S3’s signature check', () => {
  const then = new Date('2013-05-24T00:05:00Z');

  it('accepts the request AWS documents, and refuses it altered, re-keyed, or replayed too late', () => {
    expect(verifySigV4(documentedGet(), Buffer.alloc(0), example, then)).toBeUndefined();
    expect(verifySigV4(documentedGet({ range: 'bytes=0-99' }), Buffer.alloc(0), example, then)).toMatchObject({
      status: 403,
      code: 'SignatureDoesNotMatch',
    });
    expect(verifySigV4(documentedGet(), Buffer.alloc(0), { ...example, secretAccessKey: 'other' }, then)).toMatchObject(
      { code: 'SignatureDoesNotMatch' },
    );
    expect(verifySigV4(documentedGet(), Buffer.alloc(0), { ...example, accessKeyId: 'AKIAOTHER' }, then)).toMatchObject(
      { status: 403, code: 'InvalidAccessKeyId' },
    );
    expect(verifySigV4(documentedGet(), Buffer.alloc(0), example, new Date('2013-05-24T01:00:00Z'))).toMatchObject({
      code: 'RequestTimeTooSkewed',
    });
    expect(verifySigV4(documentedGet({ authorization: '' }), Buffer.alloc(0), example, then)).toMatchObject({
      status: 403,
      code: 'AccessDenied',
    });
  });

  it('refuses a body that is not the one whose hash was signed', async () => {
    const s3 = await startFakeS3({ accessKeyId: 'k', secretAccessKey: 's' });
    try {
      const url = new URL(`${s3.url}/recordings/a.ogg`);
      const signed = signRequest(
        { method: 'PUT', url, payloadHash: EMPTY_PAYLOAD_SHA256 },
        { accessKeyId: 'k', secretAccessKey: 's' },
        { region: 'us-east-1', date: new Date() },
      );
      const response = await fetch(url, { method: 'PUT', headers: signed.headers, body: 'not empty' });
      expect(response.status).toBe(400);
      expect(await response.text()).toContain('<Code>XAmzContentSHA256Mismatch</Code>');
      expect(s3.keys('recordings')).toEqual([]);
    } finally {
      await s3.close();
    }
  });
});
