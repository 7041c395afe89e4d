/**
 * A nats-server of the test's own (Debian's package, as CI's), with JetStream in a temporary folder: processes a
 * test starts on it share no subject with other test files on the machine's NATS, and nothing another test does
 * (a restart, a flood) reaches them.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const NATS_SERVER = ['/usr/sbin/nats-server', '/usr/bin/nats-server'].find(
  (path) => spawnSync(path, ['--version']).status === 0,
);

export interface PrivateNats {
  url: string;
  stop(): Promise<void>;
}

export async function startPrivateNats(): Promise<PrivateNats> {
  if (!NATS_SERVER) throw new Error('nats-server is not installed (Debian package nats-server)');
  const port = await freePort();
  const store = await mkdtemp(join(tmpdir(), 'parley-nats-'));
  const child = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', store], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('Server is ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`nats-server exited (${code}): ${seen}`)));
  });
  return {
    url: `nats://127.0.0.1:${port}`,
    async stop() {
      await kill(child);
      await rm(store, { recursive: true, force: true });
    },
  };
}

function kill(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}
