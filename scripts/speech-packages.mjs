#!/usr/bin/env node
/**
 * Run by `npm start` (the root package.json's prestart): makes sure the offline speech recogniser is there before
 * Parley starts. The offline voice needs nothing here (without Debian's flite and espeak-ng the engine speaks with
 * espeak-ng's WebAssembly build from npm), but no npm package carries an offline recogniser with its model: that is
 * Debian's pocketsphinx and pocketsphinx-en-us, without which every call is refused.
 *
 * When PARLEY_STT is unset or `pocketsphinx`, it checks what the engine's pocketsphinx provider needs (the
 * pocketsphinx_continuous program on PATH, the US English model under /usr/share/pocketsphinx/model/en-us). When
 * they are missing: as root with apt-get, it installs them and says so; otherwise it prints the one command to run.
 * Either way Parley then starts (exit 0): a missing recogniser is reported by the engine too, call by call.
 * With PARLEY_STT=deepgram or openai there is nothing to check.
 *
 * PARLEY_SPEECH_PACKAGES=check: report only, never install (an operator who installs by other means; the tests).
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

const PACKAGES = ['pocketsphinx', 'pocketsphinx-en-us'];
const PROGRAM = 'pocketsphinx_continuous';
/** What engine/src/providers/pocketsphinx/pocketsphinx-stt.ts reads by default (POCKETSPHINX_DEBIAN_MODEL_DIR). */
const MODEL_DIR = '/usr/share/pocketsphinx/model/en-us';
const MODEL_FILES = [`${MODEL_DIR}/en-us/mdef`, `${MODEL_DIR}/en-us.lm.bin`, `${MODEL_DIR}/cmudict-en-us.dict`];
const CLOUD_RECOGNISERS = new Set(['deepgram', 'openai']);
const PREFIX = 'speech-packages:';

/** The first executable `name` on PATH, as a path; undefined when there is none. */
function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    try {
      accessSync(path.join(dir, name), constants.X_OK);
      return path.join(dir, name);
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

function readable(file) {
  try {
    accessSync(file, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/** What is missing of the recogniser, as phrases for the message; empty when it is all there. */
function missingParts() {
  const missing = [];
  if (onPath(PROGRAM) === undefined) missing.push(`${PROGRAM} is not on PATH`);
  const files = MODEL_FILES.filter((file) => !readable(file));
  if (files.length > 0)
    missing.push(`the US English model is not in ${MODEL_DIR} (${files.map((f) => path.basename(f)).join(', ')})`);
  return missing;
}

/** Runs apt-get with the terminal attached, so its progress shows; returns its exit status. */
function aptGet(args) {
  const run = spawnSync('apt-get', args, {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return run.error ? `could not run: ${run.error.message}` : run.status === 0 ? 0 : `exit ${run.status ?? run.signal}`;
}

function tellWhatToRun(missing) {
  const root = process.getuid?.() === 0;
  const command = `${root ? '' : 'sudo '}apt-get install -y ${PACKAGES.join(' ')}`;
  console.warn(
    `${PREFIX} no offline speech recogniser: ${missing.join('; ')}. Calls are refused until it is installed. ` +
      `Run:\n\n  ${command}\n\n(or set PARLEY_STT=deepgram or openai). Starting anyway.`,
  );
}

function main() {
  const stt = process.env.PARLEY_STT?.trim() || 'pocketsphinx';
  if (CLOUD_RECOGNISERS.has(stt)) {
    console.log(`${PREFIX} PARLEY_STT=${stt} needs no offline recogniser; pocketsphinx not checked.`);
    return;
  }
  if (stt !== 'pocketsphinx') return; // an unknown PARLEY_STT: the engine refuses it at start, saying what is valid
  const missing = missingParts();
  if (missing.length === 0) {
    console.log(`${PREFIX} pocketsphinx and its US English model are installed.`);
    return;
  }
  const checkOnly = process.env.PARLEY_SPEECH_PACKAGES === 'check';
  if (checkOnly || process.getuid?.() !== 0 || onPath('apt-get') === undefined) {
    tellWhatToRun(missing);
    return;
  }
  console.log(`${PREFIX} ${missing.join('; ')}: installing ${PACKAGES.join(' and ')} with apt-get (as root).`);
  const failed = [aptGet(['update']), aptGet(['install', '-y', '--no-install-recommends', ...PACKAGES])].find(
    (status) => status !== 0,
  );
  const still = missingParts();
  if (still.length === 0) {
    console.log(`${PREFIX} installed ${PACKAGES.join(' and ')}: calls can be heard offline.`);
    return;
  }
  console.warn(`${PREFIX} apt-get did not install them${failed ? ` (${failed})` : ''}.`);
  tellWhatToRun(still);
}

main();
