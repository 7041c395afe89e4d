/**
 * Entry of a forked server process: runs the server the parent names (real app or baseline), reports its URL,
 * and closes it when told to or when the parent goes away. It ignores Ctrl-C (the terminal sends SIGINT to the
 * whole process group): the parent stops the load first, then closes its servers in order and drops the schema.
 */
import type { FromServer, ServerSpec, ToServer } from './server-messages.ts';
import { startBaselineServer, type RunningServer } from './baseline-server.ts';
import { startRealServer } from './real-server.ts';

let server: RunningServer | undefined;
let closing = false;

function send(message: FromServer): Promise<void> {
  return new Promise((resolve) => {
    if (!process.connected) return resolve();
    process.send!(message, undefined, {}, () => resolve());
  });
}

async function start(spec: ServerSpec): Promise<void> {
  try {
    server = spec.kind === 'real' ? await startRealServer(spec) : await startBaselineServer(spec.routes);
    await send({ type: 'listening', url: server.url });
  } catch (error) {
    await send({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    process.exit(1);
  }
}

async function close(): Promise<void> {
  if (closing) return;
  closing = true;
  await server?.close();
  await send({ type: 'closed' });
  // A normal exit, so `--cpu-prof` writes its profile.
  process.exit(0);
}

process.on('SIGINT', () => {});
process.on('disconnect', () => void close());
process.on('message', (message: ToServer) => {
  if (message.type === 'start') void start(message.spec);
  else if (message.type === 'cpu-usage') {
    const usage = process.cpuUsage();
    void send({ type: 'cpu-usage', micros: usage.user + usage.system });
  } else if (message.type === 'close') void close();
});
