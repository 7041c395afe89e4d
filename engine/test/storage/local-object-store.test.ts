/**
 * The local-folder object store: keys are paths relative to the folder, objects appear whole, ranges are read byte
 * for byte, and no key — however it is spelt — reads or writes outside the folder.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalObjectStore } from '../../src/storage/local-object-store.ts';
import { ObjectStoreError } from '../../src/storage/storage-error.ts';

let outer: string;
let root: string;
beforeEach(async () => {
  outer = await mkdtemp(path.join(tmpdir(), 'parley-local-store-'));
  root = path.join(outer, 'recordings');
});
afterEach(async () => {
  await rm(outer, { recursive: true, force: true });
});

async function bytesOf(body: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of body) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

describe('the local object store', () => {
  it('stores bytes and files under relative keys, reads them whole and by range, and deletes them', async () => {
    const store = new LocalObjectStore(root);
    const audio = randomBytes(5_000);
    await store.put('org/call.ogg', audio);
    expect((await readFile(path.join(root, 'org', 'call.ogg'))).equals(audio)).toBe(true);
    expect(await store.head('org/call.ogg')).toEqual({ size: 5_000, contentType: undefined });
    expect((await bytesOf((await store.get('org/call.ogg'))!.body)).equals(audio)).toBe(true);
    const part = await store.get('org/call.ogg', { start: 10, end: 19 });
    expect(part).toMatchObject({ size: 5_000, range: { start: 10, end: 19 } });
    expect((await bytesOf(part!.body)).equals(audio.subarray(10, 20))).toBe(true);
    await expect(store.get('org/call.ogg', { start: 4_990, end: 5_000 })).rejects.toMatchObject({
      code: 'invalid_request',
    });

    const file = path.join(outer, 'finished.ogg');
    await writeFile(file, audio.subarray(0, 100));
    await store.put('org/copy.ogg', { file });
    expect((await store.head('org/copy.ogg'))?.size).toBe(100);
    await store.put('org/streamed.ogg', {
      stream: Readable.from([audio.subarray(0, 60), audio.subarray(60, 200)]),
      length: 200,
    });
    expect((await bytesOf((await store.get('org/streamed.ogg'))!.body)).equals(audio.subarray(0, 200))).toBe(true);
    await expect(
      store.put('org/short.ogg', { stream: Readable.from([audio.subarray(0, 10)]), length: 200 }),
    ).rejects.toMatchObject({ code: 'internal' });
    expect(await readdir(path.join(root, 'org'))).toEqual(['call.ogg', 'copy.ogg', 'streamed.ogg']); // nothing partial left behind

    await store.delete('org/call.ogg');
    expect(await store.head('org/call.ogg')).toBeUndefined();
    expect(await store.get('org/call.ogg')).toBeUndefined();
    expect(await store.head('org')).toBeUndefined(); // a folder is not an object
    await store.delete('org/call.ogg');
  });

  it('refuses every key that would leave the folder, before touching the disk', async () => {
    await writeFile(path.join(outer, 'secret.txt'), 'not yours');
    const store = new LocalObjectStore(root);
    const escapes = [
      '../secret.txt',
      'org/../../secret.txt',
      '/etc/passwd',
      `${outer}/secret.txt`,
      'org\\..\\..\\secret.txt',
      'org//x.ogg',
      '..',
      '.',
      '',
      'a\u0000b',
    ];
    for (const key of escapes) {
      for (const attempt of [
        () => store.head(key),
        () => store.get(key),
        () => store.put(key, Buffer.from('x')),
        () => store.delete(key),
      ]) {
        const error = await attempt().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error, key).toBeInstanceOf(ObjectStoreError);
        expect(error, key).toMatchObject({ code: 'invalid_request', retryable: false });
      }
      expect(() => store.pathOf(key), key).toThrow(ObjectStoreError);
    }
    expect(await readFile(path.join(outer, 'secret.txt'), 'utf8')).toBe('not yours');
    expect(await readdir(outer)).toEqual(['secret.txt']);
  });
});
