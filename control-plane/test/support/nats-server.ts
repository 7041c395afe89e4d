/**
 * A nats-server of a test's own (Debian's package, as CI's), on a free port: for tests that stop the server, or that
 * run `parley start` processes which must share the test's subjects (a child process cannot join the test's bus
 * namespace, so it gets a whole server).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export const NATS_SERVER = ['/usr/sbin/nats-server', '/usr/bin/nats-server'].find(
  (path) => spawnSync(path, ['--version']).status === 0,
);

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts nats-server on 127.0.0.1:`port`; resolves once it is ready.
 * @param options.jetStreamDir enables JetStream, keeping its streams in this folder
 */
export function startNats(port: number, options: { jetStreamDir?: string } = {}): Promise<ChildProcess> {
  if (!NATS_SERVER) throw new Error('nats-server is not installed (Debian package nats-server)');
  const args = ['-a', '127.0.0.1', '-p', String(port)];
  if (options.jetStreamDir) args.push('-js', '-sd', options.jetStreamDir);
  const child = spawn(NATS_SERVER, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('Server is ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`nats-server exited (${code}): ${seen}`)));
  });
}

/** Kills the server at once (SIGKILL), as a crash would. */
export function stopNats(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}
