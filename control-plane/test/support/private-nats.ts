/**
 * A nats-server of the test's own with JetStream in a temporary folder: processes a test starts on it share no
 * subject with other test files on the machine's NATS, and nothing another test does (a restart, a flood) reaches
 * them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startNats, stopNats } from './nats-server.ts';

export { NATS_SERVER } from './nats-server.ts';

export interface PrivateNats {
  url: string;
  stop(): Promise<void>;
}

export async function startPrivateNats(): Promise<PrivateNats> {
  const port = await freePort();
  const store = await mkdtemp(join(tmpdir(), 'parley-nats-'));
  const child = await startNats(port, { jetStreamDir: store });
  return {
    url: `nats://127.0.0.1:${port}`,
    async stop() {
      await stopNats(child);
      await rm(store, { recursive: true, force: true });
    },
  };
}
