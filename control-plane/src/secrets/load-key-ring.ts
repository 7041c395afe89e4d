/**
 * The key ring a process uses: PARLEY_SECRET_KEYS when set, else a key generated once into PARLEY_DATA_DIR
 * (docs/architecture.md §2), so an embedded install keeps its secrets readable across restarts with nothing configured.
 * Processes that share a database must share their keys: scale-out installs set PARLEY_SECRET_KEYS.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../config-error.ts';
import { KeyRing, SecretError } from './key-ring.ts';

/** The generated key's file under the data directory (mode 0600, like bootstrap.json). */
export const SECRET_KEYS_FILE = 'secret-keys';

export async function loadKeyRing(options: { secretKeys: string | undefined; dataDir: string }): Promise<KeyRing> {
  if (options.secretKeys) return parse(options.secretKeys, 'PARLEY_SECRET_KEYS');
  const file = path.join(options.dataDir, SECRET_KEYS_FILE);
  const existing = await readIfExists(file);
  if (existing !== undefined) return parse(existing, file);
  await fs.mkdir(options.dataDir, { recursive: true, mode: 0o700 });
  const generated = KeyRing.generate();
  // Written aside, then linked into place: link() fails if the file exists and never shows a half-written one, so
  // processes starting together on one data dir all end up with the first one's key.
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  await fs.writeFile(temporary, `${generated.text}\n`, { mode: 0o600 });
  try {
    await fs.link(temporary, file);
    return generated.ring;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return parse((await readIfExists(file)) ?? '', file);
  } finally {
    await fs.rm(temporary, { force: true });
  }
}

function parse(text: string, source: string): KeyRing {
  try {
    return KeyRing.parse(text);
  } catch (error) {
    if (error instanceof SecretError) throw new ConfigError(`${source}: ${error.message}`);
    throw error;
  }
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return (await fs.readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
