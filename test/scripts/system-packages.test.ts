/**
 * scripts/system-packages.mjs runs before `npm test` and brings the Debian packages the suite needs. It runs here as
 * a child process against the machine's real dpkg; only apt-get is replaced, by a stand-in first on PATH that records
 * how it was called, so no test touches the network or the machine's packages.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/system-packages.mjs', import.meta.url));
const hasDpkg = spawnSync('sh', ['-c', 'command -v dpkg-query'], { stdio: 'ignore' }).status === 0;
const isRoot = process.getuid?.() === 0;
/** A name Debian will never ship: it contains an upper-case letter, which package names may not. */
const ABSENT = 'parley-Absent-package';

let fakeBin: string;
let aptLog: string;

beforeAll(() => {
  fakeBin = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-system-packages-'));
  aptLog = path.join(fakeBin, 'apt-get.log');
  // The stand-in apt-get logs its arguments; `update` succeeds and `install` fails, as the real one would for a
  // package that does not exist.
  const aptGet = `#!/bin/sh\necho "$@" >> "${aptLog}"\n[ "$1" = update ] && exit 0\nexit 100\n`;
  fs.writeFileSync(path.join(fakeBin, 'apt-get'), aptGet, { mode: 0o755 });
});

afterAll(() => fs.rmSync(fakeBin, { recursive: true, force: true }));

function runScript(args: string[], extraPackages?: string) {
  fs.rmSync(aptLog, { force: true });
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${fakeBin}:${process.env.PATH}` };
  delete env.PARLEY_SKIP_SYSTEM_PACKAGES;
  delete env.PARLEY_SYSTEM_PACKAGES_EXTRA;
  if (extraPackages) env.PARLEY_SYSTEM_PACKAGES_EXTRA = extraPackages;
  const started = performance.now();
  const result = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', env });
  return {
    status: result.status,
    output: result.stdout + result.stderr,
    elapsedMs: performance.now() - started,
    aptCalls: fs.existsSync(aptLog) ? fs.readFileSync(aptLog, 'utf8').trim().split('\n') : [],
  };
}

describe.skipIf(!hasDpkg)('scripts/system-packages.mjs', () => {
  it('is a quick no-op when every package is installed (npm test ran it first, so they are)', () => {
    const run = runScript([]);
    expect(run.output).toBe('');
    expect(run.status).toBe(0);
    expect(run.aptCalls).toEqual([]);
    // One dpkg-query call; generous for a busy two-core machine, far below any apt-get update.
    expect(run.elapsedMs).toBeLessThan(5_000);
  });

  it('with --check-only, names the missing package and the one command that installs it, and fails', () => {
    const run = runScript(['--check-only'], ABSENT);
    expect(run.status).not.toBe(0);
    expect(run.output).toContain(`sudo apt-get install -y ${ABSENT}`);
    expect(run.aptCalls).toEqual([]);
  });

  it.skipIf(!isRoot)('as root, installs only what is missing with apt-get and says so', () => {
    const run = runScript([], ABSENT);
    expect(run.output).toContain(`installing ${ABSENT}`);
    expect(run.aptCalls).toEqual(['update -qq', `install -y -qq ${ABSENT}`]);
    // The stand-in apt-get fails, as the real one does for an unknown package: the script must fail with it.
    expect(run.status).not.toBe(0);
  });
});
