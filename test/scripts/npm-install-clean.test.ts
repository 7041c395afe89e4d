/**
 * A new user's `npm ci` prints no warning of ours (issue 13). The warnings it used to print came from three places,
 * each checked here without touching the network:
 * - a package whose `engines.node` excludes a Node that package.json says Parley supports (EBADENGINE): every
 *   non-optional entry of package-lock.json, which is exactly what `npm ci` installs, must accept the first release of each Node line
 *   we support, and the Node running the tests must be one we support;
 * - a project config npm does not know (`.npmrc`): any npm command would warn about it;
 * - a dependency's install script that package.json's `allowScripts` neither approves nor denies.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const readJson = (file: string) => JSON.parse(fs.readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));

interface LockEntry {
  version?: string;
  optional?: boolean;
  engines?: { node?: string } | string[];
}

const supported: string = readJson('package.json').engines.node;

/** The lowest version of each alternative of the range: `^20.19.0 || >=22.12.0` gives 20.19.0 and 22.12.0. */
function firstSupportedReleases(range: string): string[] {
  return new semver.Range(range).set.map(
    (comparators) => semver.minVersion(comparators.map((c) => c.value).join(' '))!.version,
  );
}

function npm(args: string[]) {
  const run = spawnSync('npm', args, { cwd: REPO_ROOT, encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('Node versions', () => {
  it('the Node running the tests is one package.json says Parley supports', () => {
    expect(semver.satisfies(process.versions.node, supported), `Node ${process.versions.node} vs ${supported}`).toBe(
      true,
    );
  });

  it('every package npm ci installs accepts the first release of each Node line Parley supports', () => {
    const releases = firstSupportedReleases(supported);
    expect(releases.length).toBeGreaterThan(0);
    const packages: Record<string, LockEntry> = readJson('package-lock.json').packages;
    const refusing: string[] = [];
    let checked = 0;
    for (const [where, entry] of Object.entries(packages)) {
      const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
      // npm skips, silently, an optional package that does not fit this machine (os, cpu or engines): rollup's wasm
      // build lists a native lzma helper wanting Node 22.20+, and works without it.
      if (!where || !range || entry.optional) continue;
      checked++;
      const excluded = releases.filter((release) => !semver.satisfies(release, range));
      if (excluded.length) refusing.push(`${where}@${entry.version} wants node ${range}, not ${excluded.join(', ')}`);
    }
    expect(checked).toBeGreaterThan(50);
    expect(refusing).toEqual([]);
  });
});

describe('npm itself', () => {
  it('finds no project config it does not know (an npm command prints no warning)', () => {
    const run = npm(['ls', '--depth=0']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/npm warn/i);
  });

  it("has every dependency's install script approved or denied in allowScripts", () => {
    const run = npm(['install-scripts', 'ls']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).toContain('No packages with unreviewed install scripts.');
  });
});
