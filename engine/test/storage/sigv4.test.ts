/**
 * Signature Version 4 against the worked examples of S3's documentation ("Authenticating Requests: Using the
 * Authorization Header", signature calculation examples): the example keys, us-east-1, bucket examplebucket,
 * 20130524T000000Z. Each expected signature is AWS's published one, not ours.
 */
import { describe, expect, it } from 'vitest';
import {
  EMPTY_PAYLOAD_SHA256,
  sha256Hex,
  signRequest,
  signingKey,
  toAmzDate,
  uriEncode,
} from '../../src/storage/sigv4.ts';
import { DOCUMENTED_CREDENTIAL, DOCUMENTED_CREDENTIALS, DOCUMENTED_GET_SIGNATURE } from './aws-documented-example.ts';

const credentials = DOCUMENTED_CREDENTIALS;
const scope = { region: 'us-east-1', date: new Date('2013-05-24T00:00:00Z') };
const host = 'https://examplebucket.s3.amazonaws.com';

describe('Signature Version 4', () => {
  it('signs the documented GET Object example (Range: bytes=0-9) step by step', () => {
    const signed = signRequest(
      {
        method: 'GET',
        url: new URL(`${host}/test.txt`),
        headers: { Range: 'bytes=0-9' },
        payloadHash: EMPTY_PAYLOAD_SHA256,
      },
      credentials,
      scope,
    );
    expect(signed.canonicalRequest).toBe(
      [
        'GET',
        '/test.txt',
        '',
        'host:examplebucket.s3.amazonaws.com',
        'range:bytes=0-9',
        'x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
        'x-amz-date:20130524T000000Z',
        '',
        'host;range;x-amz-content-sha256;x-amz-date',
        'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      ].join('\n'),
    );
    expect(signed.stringToSign).toBe(
      [
        'AWS4-HMAC-SHA256',
        '20130524T000000Z',
        '20130524/us-east-1/s3/aws4_request',
        '7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972',
      ].join('\n'),
    );
    expect(signed.signature).toBe(DOCUMENTED_GET_SIGNATURE);
    expect(signed.headers).toMatchObject({
      Range: 'bytes=0-9',
      'x-amz-date': '20130524T000000Z',
      'x-amz-content-sha256': EMPTY_PAYLOAD_SHA256,
      authorization:
        `AWS4-HMAC-SHA256 Credential=${DOCUMENTED_CREDENTIAL}, ` +
        `SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=${DOCUMENTED_GET_SIGNATURE}`,
    });
  });

  it('signs the documented PUT Object example: a signed payload, a $ in the key, extra headers', () => {
    const body = 'Welcome to Amazon S3.';
    expect(sha256Hex(body)).toBe('44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072');
    const signed = signRequest(
      {
        method: 'PUT',
        url: new URL(`${host}/test$file.text`),
        headers: { Date: 'Fri, 24 May 2013 00:00:00 GMT', 'x-amz-storage-class': 'REDUCED_REDUNDANCY' },
        payloadHash: sha256Hex(body),
      },
      credentials,
      scope,
    );
    expect(signed.canonicalRequest.split('\n')[1]).toBe('/test%24file.text');
    expect(signed.headers.authorization).toContain(
      'SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class,',
    );
    expect(signed.signature).toBe('98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd');
  });

  it('signs the documented bucket examples: a parameter without a value, and parameters sorted', () => {
    const lifecycle = signRequest(
      { method: 'GET', url: new URL(`${host}/?lifecycle`), payloadHash: EMPTY_PAYLOAD_SHA256 },
      credentials,
      scope,
    );
    expect(lifecycle.canonicalRequest.split('\n')[2]).toBe('lifecycle=');
    expect(lifecycle.signature).toBe('fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543');
    const list = signRequest(
      { method: 'GET', url: new URL(`${host}/?prefix=J&max-keys=2`), payloadHash: EMPTY_PAYLOAD_SHA256 },
      credentials,
      scope,
    );
    expect(list.canonicalRequest.split('\n')[2]).toBe('max-keys=2&prefix=J');
    expect(list.signature).toBe('34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7');
  });

  it('derives the signing key from the secret, day, region and service', () => {
    // The key differs per day, region and service: a signature made for one is worthless for another.
    const key = signingKey(credentials.secretAccessKey, '20130524', 'us-east-1', 's3');
    expect(key).toHaveLength(32);
    expect(signingKey(credentials.secretAccessKey, '20130525', 'us-east-1', 's3').equals(key)).toBe(false);
    expect(signingKey(credentials.secretAccessKey, '20130524', 'eu-west-1', 's3').equals(key)).toBe(false);
  });

  it('encodes as S3 does, dates as ISO 8601 basic', () => {
    expect(uriEncode("a b/c$d!'()*~-_.é")).toBe('a%20b%2Fc%24d%21%27%28%29%2A~-_.%C3%A9');
    expect(uriEncode('org/call 1.ogg', true)).toBe('org/call%201.ogg');
    expect(toAmzDate(new Date('2024-02-29T23:59:58.999Z'))).toBe('20240229T235958Z');
  });
});
