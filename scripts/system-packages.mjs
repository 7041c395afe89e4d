#!/usr/bin/env node
// Makes sure the Debian packages the test suite drives are on the machine, so `npm test` (whose `pretest` runs this)
// works on a fresh machine as README says. When all are present it only asks dpkg and exits: no apt, no network.
// When some are missing: as root with apt-get it installs them and says which; otherwise (or with --check-only) it
// exits non-zero and prints the one command that installs them.
//
// Options (for callers and for test/scripts/system-packages.test.ts):
//   --check-only                      never install; report what is missing
//   PARLEY_SYSTEM_PACKAGES_EXTRA="a b" also require these packages (a later issue adding a tool, or a test)
//   PARLEY_SKIP_SYSTEM_PACKAGES=1     skip the check entirely (a machine that is not Debian, or a developer who knows)
import { spawnSync } from 'node:child_process';

/** The one list of Debian packages the tests need; each says which tests use it. */
const SYSTEM_PACKAGES = [
  // control-plane page tests drive a real browser through playwright-core (control-plane/test/support/browser.ts)
  { name: 'chromium', neededBy: 'control-plane page tests' },
  // offline text-to-speech: engine/test/offline-speech/flite-tts.test.ts, carrier and session tests' spoken callers
  { name: 'flite', neededBy: 'offline speech and carrier tests' },
  // offline speech recognition: engine/test/offline-speech/pocketsphinx-stt.test.ts, carrier conversation tests
  { name: 'pocketsphinx', neededBy: 'offline recognition tests' },
  // pocketsphinx's English acoustic model and dictionary, without which it recognises nothing
  { name: 'pocketsphinx-en-us', neededBy: 'offline recognition tests' },
  // the second offline voice: engine/test/offline-speech/espeak-tts.test.ts, espeak-voices.test.ts
  { name: 'espeak-ng', neededBy: 'espeak voice tests' },
  // opusinfo checks the OGG/Opus recordings the engine writes (ogg-opus-writer.test.ts, recording tests)
  { name: 'opus-tools', neededBy: 'recording tests' },
  // sox is the reference WAV/G.711 codec the engine's own codecs are compared against (wav.test.ts, g711.test.ts)
  { name: 'sox', neededBy: 'audio codec tests' },
  // openssl makes the certificate of the HTTPS server that serves OAuth client metadata documents (mcp-oauth tests)
  { name: 'openssl', neededBy: 'MCP sign-in tests' },
  // SIPp 3.6.1 with pcap play: the SIP gateway's callers and trunks (sip-gateway/test/*-call.test.ts)
  { name: 'sip-tester', neededBy: 'SIP gateway tests' },
  // sipsak sends OPTIONS pings to the SIP gateway (sip-gateway/test/sip-dialogs.test.ts)
  { name: 'sipsak', neededBy: 'SIP gateway tests' },
];

function requiredPackages() {
  const extra = (process.env.PARLEY_SYSTEM_PACKAGES_EXTRA ?? '').split(/[\s,]+/).filter(Boolean);
  return [...SYSTEM_PACKAGES, ...extra.map((name) => ({ name, neededBy: 'PARLEY_SYSTEM_PACKAGES_EXTRA' }))];
}

function hasCommand(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** Asks dpkg about every package in one call. Installed means "install ok installed"; a removed package keeps a line. */
function installedPackages(names) {
  const query = spawnSync('dpkg-query', ['-W', '-f=${Package} ${Status}\\n', ...names], { encoding: 'utf8' });
  const installed = new Set();
  for (const line of query.stdout.split('\n')) {
    const [name, ...status] = line.trim().split(' ');
    if (status.join(' ') === 'install ok installed') installed.add(name.replace(/:.*$/, ''));
  }
  return installed;
}

function run(command, args, env) {
  console.log(`system-packages: ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status === 0;
}

function main() {
  if (process.env.PARLEY_SKIP_SYSTEM_PACKAGES === '1') return 0;
  if (!hasCommand('dpkg-query')) {
    console.error(
      'system-packages: this is not a Debian-like machine (no dpkg-query); install these by hand: ' +
        requiredPackages()
          .map((p) => p.name)
          .join(' '),
    );
    console.error('system-packages: set PARLEY_SKIP_SYSTEM_PACKAGES=1 to skip this check');
    return 1;
  }
  const required = requiredPackages();
  const installed = installedPackages(required.map((pkg) => pkg.name));
  const missing = required.filter((pkg) => !installed.has(pkg.name));
  if (missing.length === 0) return 0;

  const names = missing.map((pkg) => pkg.name);
  for (const pkg of missing) console.log(`system-packages: missing ${pkg.name} (${pkg.neededBy})`);
  const checkOnly = process.argv.includes('--check-only');
  const isRoot = process.getuid?.() === 0;
  if (!checkOnly && isRoot && hasCommand('apt-get')) {
    console.log(`system-packages: installing ${names.join(' ')}`);
    const env = { DEBIAN_FRONTEND: 'noninteractive' };
    if (run('apt-get', ['update', '-qq'], env) && run('apt-get', ['install', '-y', '-qq', ...names], env)) return 0;
    console.error('system-packages: apt-get failed; see its output above');
    return 1;
  }
  console.error(`system-packages: the tests need Debian packages that are missing: ${names.join(' ')}`);
  console.error('system-packages: install them with:');
  console.error(`  sudo apt-get install -y ${names.join(' ')}`);
  return 1;
}

process.exitCode = main();
