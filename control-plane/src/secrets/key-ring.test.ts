import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config-error.ts';
import { isCiphertext, KeyRing, SecretError } from './key-ring.ts';
import { loadKeyRing, SECRET_KEYS_FILE } from './load-key-ring.ts';

const key = () => randomBytes(32).toString('base64');

describe('key ring', () => {
  it('encrypts with the first key, writing its id beside the ciphertext, and decrypts', () => {
    const ring = KeyRing.parse(`k2:${key()},k1:${key()}`);
    const sealed = ring.encrypt('sk-live-123', 'org-1');
    expect(isCiphertext(sealed)).toBe(true);
    expect(sealed.startsWith('enc:v1:k2:')).toBe(true);
    expect(sealed).not.toContain('sk-live-123');
    expect(ring.decrypt(sealed, 'org-1')).toBe('sk-live-123');
  });

  it('uses a fresh nonce each time, so equal secrets do not give equal ciphertexts', () => {
    const ring = KeyRing.parse(`a:${key()}`);
    expect(ring.encrypt('same', 'ctx')).not.toBe(ring.encrypt('same', 'ctx'));
  });

  it('rotates: old ciphertext still decrypts after a new first key is added, and new ciphertext uses the new key', () => {
    const oldKey = key();
    const before = KeyRing.parse(`old:${oldKey}`);
    const sealedBefore = before.encrypt('token-a', 'org');
    const after = KeyRing.parse(`new:${key()},old:${oldKey}`);
    expect(after.decrypt(sealedBefore, 'org')).toBe('token-a');
    expect(after.needsRotation(sealedBefore)).toBe(true);
    const sealedAfter = after.encrypt('token-b', 'org');
    expect(sealedAfter.startsWith('enc:v1:new:')).toBe(true);
    expect(after.needsRotation(sealedAfter)).toBe(false);
    // Dropping the old key before re-encrypting makes its ciphertexts unreadable, and says which key is missing.
    const dropped = KeyRing.parse(`new:${key()}`);
    expect(() => dropped.decrypt(sealedBefore, 'org')).toThrow(expect.objectContaining({ code: 'unknown_key' }));
  });

  it('refuses a ciphertext read under another context, altered, or malformed', () => {
    const ring = KeyRing.parse(`a:${key()}`);
    const sealed = ring.encrypt('secret', 'org-1');
    expect(() => ring.decrypt(sealed, 'org-2')).toThrow(expect.objectContaining({ code: 'undecryptable' }));
    const tail = sealed.slice(-4);
    const altered = sealed.slice(0, -4) + (tail === 'AAAA' ? 'BBBB' : 'AAAA');
    expect(() => ring.decrypt(altered, 'org-1')).toThrow(expect.objectContaining({ code: 'undecryptable' }));
    expect(() => ring.decrypt('enc:v1:a:xx', 'org-1')).toThrow(expect.objectContaining({ code: 'malformed' }));
    expect(() => ring.decrypt('plain', 'org-1')).toThrow(SecretError);
  });

  it('reads base64url keys and refuses short keys, bad ids and repeated ids', () => {
    expect(KeyRing.parse(`u:${randomBytes(32).toString('base64url')}`).primaryKeyId).toBe('u');
    expect(() => KeyRing.parse(`a:${randomBytes(16).toString('base64')}`)).toThrow(/32 bytes/);
    expect(() => KeyRing.parse(`bad id:${key()}`)).toThrow(/id/);
    expect(() => KeyRing.parse(key())).toThrow(/id:base64key/);
    const k = key();
    expect(() => KeyRing.parse(`a:${k},a:${k}`)).toThrow(/twice/);
    expect(() => KeyRing.parse(' , ')).toThrow(/at least one key/);
  });
});

describe('signatures of the key ring', () => {
  it('verifies its own signature, under an older key too, and refuses another purpose, message or ring', () => {
    const oldKey = key();
    const old = KeyRing.parse(`old:${oldKey}`);
    const signature = old.sign('quote', 'q1.abc');
    expect(signature.startsWith('old.')).toBe(true);
    const rotated = KeyRing.parse(`new:${key()},old:${oldKey}`);
    expect(rotated.verify('quote', 'q1.abc', signature)).toBe(true);
    expect(rotated.sign('quote', 'q1.abc').startsWith('new.')).toBe(true);
    expect(rotated.verify('pay-page', 'q1.abc', signature)).toBe(false);
    expect(rotated.verify('quote', 'q1.abd', signature)).toBe(false);
    expect(KeyRing.parse(`old:${key()}`).verify('quote', 'q1.abc', signature)).toBe(false);
    expect(rotated.verify('quote', 'q1.abc', `${signature}x`)).toBe(false);
    expect(rotated.verify('quote', 'q1.abc', 'nokey')).toBe(false);
  });
});

describe('loading the key ring', () => {
  it('uses PARLEY_SECRET_KEYS when set, and names it when it is wrong', async () => {
    const ring = await loadKeyRing({ secretKeys: `prod:${key()}`, dataDir: '/nonexistent' });
    expect(ring.primaryKeyId).toBe('prod');
    await expect(loadKeyRing({ secretKeys: 'prod:short', dataDir: '/nonexistent' })).rejects.toThrow(ConfigError);
    await expect(loadKeyRing({ secretKeys: 'prod:short', dataDir: '/nonexistent' })).rejects.toThrow(
      /PARLEY_SECRET_KEYS/,
    );
  });

  it('generates a key once into the data directory (mode 0600) and reuses it', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-keys-'));
    try {
      const first = await loadKeyRing({ secretKeys: undefined, dataDir });
      const file = path.join(dataDir, SECRET_KEYS_FILE);
      expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
      const sealed = first.encrypt('kept across restarts', 'org');
      const second = await loadKeyRing({ secretKeys: undefined, dataDir });
      expect(second.decrypt(sealed, 'org')).toBe('kept across restarts');
      const together = await Promise.all([1, 2, 3].map(() => loadKeyRing({ secretKeys: undefined, dataDir })));
      for (const ring of together) expect(ring.decrypt(sealed, 'org')).toBe('kept across restarts');
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });

  it('two processes generating at once agree on one key', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-keys-'));
    try {
      const rings = await Promise.all([1, 2, 3, 4].map(() => loadKeyRing({ secretKeys: undefined, dataDir })));
      const sealed = rings[0]!.encrypt('x', 'c');
      for (const ring of rings) expect(ring.decrypt(sealed, 'c')).toBe('x');
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
