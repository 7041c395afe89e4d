/**
 * `npm start` as README runs it, stopped the way a process manager stops it: SIGTERM to the pid it started, which is
 * npm's. npm forwards the signal to its script's `sh -c`; unless the script execs node, the shell dies and Parley
 * keeps running without a parent. Here the whole tree must be gone, and the port closed, after one SIGTERM.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from 'vitest';
import { childEnv } from './support/processes.ts';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

let dataDir: string | undefined;
const leftovers = new Set<number>();
afterAll(async () => {
  for (const pid of leftovers) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  if (dataDir) await fs.rm(dataDir, { recursive: true, force: true });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every process below `root`, read from /proc (field 4 of /proc/<pid>/stat is the parent). */
async function descendants(root: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await fs.readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // The command name (field 2) is in parentheses and may hold spaces; the fields after its ')' are fixed.
    const afterName = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (afterName[1]) parents.set(Number(entry), Number(afterName[1]));
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length) {
    const parent = queue.shift()!;
    for (const [pid, ppid] of parents) {
      if (ppid !== parent || found.includes(pid)) continue;
      found.push(pid);
      queue.push(pid);
    }
  }
  return found;
}

async function answers(url: string): Promise<boolean> {
  return fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1_000) }).then(
    () => true,
    () => false,
  );
}

it.runIf(process.platform === 'linux')(
  'SIGTERM to the pid of `npm start` stops Parley gracefully, leaving no process behind',
  async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'parley-npm-start-'));
    const npm = spawn('npm', ['start'], {
      cwd: REPO_ROOT,
      env: childEnv({
        PORT: '0',
        ENGINE_PORT: '0',
        SIP_PORT: '0',
        SIP_HEALTH_PORT: '0',
        PARLEY_DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    leftovers.add(npm.pid!);
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code) => resolve(code)));
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`not ready in ${READY_TIMEOUT_MS} ms:\n${output}`)),
        READY_TIMEOUT_MS,
      );
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /Parley ready at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (!match) return;
        clearTimeout(timer);
        resolve(match[1]!);
      };
      npm.stdout.on('data', onData);
      npm.stderr.on('data', onData);
      void exited.then((code) => reject(new Error(`npm start exited with ${code} before ready:\n${output}`)));
    });
    expect(await answers(url)).toBe(true);
    const tree = await descendants(npm.pid!);
    for (const pid of tree) leftovers.add(pid);
    expect(tree.length).toBeGreaterThan(0);

    const signalled = performance.now();
    npm.kill('SIGTERM');
    const code = await Promise.race([
      exited,
      new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), STOP_TIMEOUT_MS)),
    ]);
    expect(code, output).toBe(0);
    expect(performance.now() - signalled).toBeLessThan(STOP_TIMEOUT_MS);
    expect(output).toMatch(/"signal":"SIGTERM".*shutting down/);
    // npm waits for its script; a node that ignored the signal or a worker it left behind would still be here.
    await expect.poll(() => tree.filter(isAlive), { timeout: 2_000 }).toEqual([]);
    expect(await answers(url)).toBe(false);
  },
  READY_TIMEOUT_MS + STOP_TIMEOUT_MS + 10_000,
);
