/**
 * scripts/speech-packages.mjs, which `npm start` runs first, as a child process: skipped for a cloud recogniser,
 * reporting what this machine really has, saying the one command to run when pocketsphinx is missing, and as root
 * calling apt-get to install it. apt-get there is a stand-in on PATH that records its arguments and installs
 * nothing, so no test ever installs a package.
 */
import { spawnSync } from 'node:child_process';
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/speech-packages.mjs', import.meta.url));
const COMMAND = 'apt-get install -y pocketsphinx pocketsphinx-en-us';
const isRoot = process.getuid?.() === 0;

let dir: string;
/** Where the stand-in apt-get writes one line per run: its arguments. */
let aptLog: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'parley-speech-packages-'));
  aptLog = path.join(dir, 'apt-get.log');
  const fakeAptGet = path.join(dir, 'apt-get');
  writeFileSync(fakeAptGet, `#!/bin/sh\necho "$@" >> "${aptLog}"\n`);
  chmodSync(fakeAptGet, 0o755);
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the script with `env` on top of a minimal environment; PATH defaults to the folder with only apt-get. */
function run(env: Record<string, string>) {
  const result = spawnSync(process.execPath, [SCRIPT], {
    env: { PATH: dir, ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const aptRuns = () => (existsSync(aptLog) ? readFileSync(aptLog, 'utf8').trim().split('\n') : []);

describe('speech-packages (npm prestart)', () => {
  it('checks nothing when PARLEY_STT is a cloud recogniser', () => {
    for (const stt of ['deepgram', 'openai']) {
      const { status, output } = run({ PARLEY_STT: stt });
      expect(status).toBe(0);
      expect(output).toContain(`PARLEY_STT=${stt} needs no offline recogniser`);
      expect(output).not.toContain('apt-get');
    }
    expect(aptRuns()).toEqual([]);
  });

  it('says what is missing and the one command to run, then lets Parley start, when only checking', () => {
    const { status, output } = run({ PARLEY_SPEECH_PACKAGES: 'check' });
    expect(status).toBe(0);
    expect(output).toContain('pocketsphinx_continuous is not on PATH');
    expect(output).toContain(COMMAND);
    expect(output).toContain('Starting anyway');
    expect(aptRuns()).toEqual([]);
  });

  it('reports what this machine really has, with the real PATH (PARLEY_STT unset or pocketsphinx)', () => {
    const installed =
      [
        '/usr/share/pocketsphinx/model/en-us/en-us/mdef',
        '/usr/share/pocketsphinx/model/en-us/en-us.lm.bin',
        '/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict',
      ].every(existsSync) && onRealPath('pocketsphinx_continuous');
    for (const stt of [{}, { PARLEY_STT: 'pocketsphinx' }]) {
      const { status, output } = run({ PATH: process.env.PATH ?? '', PARLEY_SPEECH_PACKAGES: 'check', ...stt });
      expect(status).toBe(0);
      if (installed) expect(output).toContain('pocketsphinx and its US English model are installed');
      else expect(output).toContain(COMMAND);
    }
  });

  it.runIf(isRoot)('as root with apt-get, installs the packages and says so (here: apt-get installs nothing)', () => {
    const { status, output } = run({});
    expect(status).toBe(0);
    expect(aptRuns()).toEqual(['update', 'install -y --no-install-recommends pocketsphinx pocketsphinx-en-us']);
    expect(output).toContain('installing pocketsphinx and pocketsphinx-en-us with apt-get');
    // The stand-in installed nothing, so the script says so and what to run, and Parley still starts.
    expect(output).toContain('apt-get did not install them');
    expect(output).toContain(COMMAND);
  });
});

function onRealPath(name: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((folder) => {
    try {
      accessSync(path.join(folder, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
