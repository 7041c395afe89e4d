import { describe, expect, it } from 'vitest';
import { digestAuthorization, parseChallenge } from './digest.ts';

describe('digest authentication', () => {
  it("answers RFC 2617's worked example (qop=auth) with its published response", () => {
    const challenge = parseChallenge(
      'Digest realm="testrealm@host.com", qop="auth,auth-int", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9f0171e9517f40e41"',
    );
    expect(challenge).toMatchObject({ realm: 'testrealm@host.com', qop: 'auth', algorithm: 'MD5' });
    const header = digestAuthorization(
      challenge!,
      { username: 'Mufasa', password: 'Circle Of Life' },
      'GET',
      '/dir/index.html',
      1,
      '0a4f113b',
    );
    expect(header).toContain('response="6629fae49393a05397450978507c4ef1"');
    expect(header).toContain('nc=00000001');
    expect(header).toContain('opaque="5ccc069c403ebaf9f0171e9517f40e41"');
  });

  it('refuses challenges it cannot answer', () => {
    expect(parseChallenge('Basic realm="x"')).toBeUndefined();
    expect(parseChallenge('Digest realm="x"')).toBeUndefined(); // no nonce
    expect(parseChallenge('Digest realm="x", nonce="n", algorithm=MD5-sess')).toBeUndefined();
    expect(parseChallenge('Digest realm="x", nonce="n", algorithm=SHA-256')).toMatchObject({
      algorithm: 'SHA-256',
      qop: undefined,
    });
  });
});
