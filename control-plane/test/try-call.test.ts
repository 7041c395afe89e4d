/**
 * `parley call` (npm run try-call) against a real `parley start` on embedded defaults, as README's quick start runs
 * it on a fresh machine: the demo agent greets, hears the caller's sentence through pocketsphinx and says it back;
 * the transcript shows both sides and the WAV holds the agent's voice. Then, refused: no Parley at the URL, and a
 * Parley without a speech recogniser (the 503's advice is printed). Needs Debian's flite and pocketsphinx (under
 * PARLEY_REQUIRE_ALL=1 it runs regardless, and fails without them).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeWav, rms } from '@parley/engine/audio';
import { requireAll } from './support/database.ts';
import { runCli, startServer, type RunningServer } from './support/processes.ts';

const onPath = (program: string) => {
  try {
    execFileSync('which', [program], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const speechInstalled =
  onPath('flite') && onPath('pocketsphinx_continuous') && existsSync('/usr/share/pocketsphinx/model/en-us');

const running = new Set<RunningServer>();
const dirs: string[] = [];
afterAll(async () => {
  for (const server of running) await server.stop('SIGKILL');
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
});

async function start(dataDir: string, args: string[] = []): Promise<RunningServer> {
  const server = await startServer({ PARLEY_DATA_DIR: dataDir }, args);
  running.add(server);
  return server;
}

async function stop(server: RunningServer): Promise<void> {
  await server.stop();
  running.delete(server);
}

describe.runIf(speechInstalled || requireAll)('parley call', () => {
  it('talks to the demo agent over a websocket call: both sides in the transcript, the agent in the WAV', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-try-call-'));
    dirs.push(dataDir);
    const server = await start(dataDir);
    try {
      // No --url, no --key: both come from the bootstrap file of the first start, as in README.
      const result = await runCli(['call'], { PARLEY_DATA_DIR: dataDir });
      expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
      expect(result.stdout).toContain('agent : Hello, this is the Parley demo.');
      const caller = /caller: (.+)/.exec(result.stdout)?.[1] ?? '';
      expect(caller, result.stdout).toMatch(/hello|world/i);
      expect(result.stdout).toMatch(/agent : You said: .*Goodbye\./);

      const wav = await fs.readFile(path.join(dataDir, 'try-call.wav'));
      expect(wav.toString('latin1', 0, 4)).toBe('RIFF');
      const audio = decodeWav(wav);
      expect(audio.sampleRate).toBe(8_000);
      expect(audio.samples.length).toBeGreaterThan(audio.sampleRate * 3); // greeting, question and goodbye
      expect(rms(audio.samples)).toBeGreaterThan(100);
    } finally {
      await stop(server);
    }

    // The same data without a speech recogniser: the call is refused and the CLI prints why.
    const deaf = await start(dataDir, ['--roles', 'control-plane,engine,tts-worker,llm-worker']);
    try {
      // A new port this time (PORT=0): bootstrap.json still names the first, so the URL is given.
      const refused = await runCli(['call', '--url', deaf.url], { PARLEY_DATA_DIR: dataDir });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('Parley could not take the call (503)');
      expect(refused.stderr).toContain('No speech recogniser is running: install pocketsphinx and pocketsphinx-en-us');
    } finally {
      await stop(deaf);
    }
  }, 240_000);
});

describe('parley call without a Parley', () => {
  it('says Parley is not running at the URL, and how to start it', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-try-call-'));
    dirs.push(dataDir);
    // Port 9 (discard) has no listener on loopback: the connection is refused at once.
    const result = await runCli(['call', '--url', 'http://127.0.0.1:9', '--key', 'parley_x'], {
      PARLEY_DATA_DIR: dataDir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Parley is not running at http:\/\/127\.0\.0\.1:9 .*npm start/);
  }, 60_000);
});
