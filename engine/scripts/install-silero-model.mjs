/**
 * Puts the Silero VAD v5 model at engine/models/silero_vad_v5.onnx (run by `npm ci` as the engine's postinstall).
 *
 * The model (Silero VAD, MIT licence) ships inside the npm package @ricky0123/vad-web. Depending on that package
 * would install onnxruntime-web (~140 MB) that the engine never loads, so this takes the one file out of the pinned
 * tarball with `npm pack` and checks it against its SHA-256. Without the registry it warns and leaves the engine on
 * its energy gate alone (PARLEY_VAD=energy behaviour); it never fails the install.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = '@ricky0123/vad-web@0.0.31';
const FILE_IN_PACKAGE = 'package/dist/silero_vad_v5.onnx';
const SHA256 = '2623a2953f6ff3d2c1e61740c6cdb7168133479b267dfef114a4a3cc5bdd788f';
const target = join(dirname(fileURLToPath(import.meta.url)), '..', 'models', 'silero_vad_v5.onnx');

const sha256 = (path) => createHash('sha256').update(readFileSync(path)).digest('hex');

if (existsSync(target) && sha256(target) === SHA256) process.exit(0);

const work = mkdtempSync(join(tmpdir(), 'parley-silero-'));
try {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const packed = JSON.parse(
    execFileSync(npm, ['pack', PACKAGE, '--json', '--pack-destination', work], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  execFileSync('tar', ['-xzf', join(work, packed[0].filename), '-C', work, FILE_IN_PACKAGE]);
  const extracted = join(work, FILE_IN_PACKAGE);
  const digest = sha256(extracted);
  if (digest !== SHA256) throw new Error(`${FILE_IN_PACKAGE} of ${PACKAGE} has SHA-256 ${digest}, expected ${SHA256}`);
  mkdirSync(dirname(target), { recursive: true });
  renameSync(extracted, target);
  console.log(`parley: Silero VAD v5 model installed at ${target}`);
} catch (error) {
  console.warn(
    `parley: could not install the Silero VAD model (${error instanceof Error ? error.message.split('\n')[0] : error}); voice activity falls back to the energy gate alone`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
