/**
 * A NATS outage as a control plane sees it: the bus says it lost its server and found it again (the warnings
 * `parley start` logs), and /readyz answers 503 while the server is gone — not 200 because the client is merely
 * open — then 200 once it is back. Runs its own nats-server (Debian's package, as CI's) on a free port, so stopping
 * it disturbs no other test.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NatsBus } from '@parley/engine/bus';
import { requireAll } from './support/database.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { freePort, NATS_SERVER, startNats, stopNats } from './support/nats-server.ts';

/** How long the client may take to notice a dead server, and to find a restarted one (it retries every 2 s). */
const NOTICE_MS = 10_000;

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + NOTICE_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!NATS_SERVER && !requireAll)('a NATS outage', () => {
  let port: number;
  let server: ChildProcess;
  let bus: NatsBus;
  let t: TestApp;
  const changes: boolean[] = [];

  beforeAll(async () => {
    if (!NATS_SERVER)
      throw new Error('nats-server is required under PARLEY_REQUIRE_ALL=1 (Debian package nats-server)');
    port = await freePort();
    server = await startNats(port);
    bus = await NatsBus.connect(`nats://127.0.0.1:${port}`, { name: 'parley-outage-test' });
    bus.onConnectionChange((connected) => changes.push(connected));
    t = await startTestApp({ bus });
  });
  afterAll(async () => {
    await t?.close();
    await bus?.close();
    if (server) await stopNats(server);
  });

  const ready = () => t.app.inject({ method: 'GET', url: '/readyz' });

  it('is reported lost and found again, and /readyz follows it', async () => {
    expect(bus.isConnected).toBe(true);
    expect((await ready()).statusCode).toBe(200);

    await stopNats(server);
    await until(() => !bus.isConnected, 'the disconnect');
    expect(changes).toEqual([false]);
    const during = await ready();
    expect(during.statusCode).toBe(503);
    expect(during.json().bus).toEqual({ ok: false, detail: expect.stringMatching(/disconnected, reconnecting/) });

    server = await startNats(port);
    await until(() => bus.isConnected, 'the reconnect');
    expect(changes).toEqual([false, true]);
    expect((await ready()).statusCode).toBe(200);

    // And it carries messages again.
    const subscription = bus.subscribe('outage.check');
    await bus.flush();
    bus.publish('outage.check', new TextEncoder().encode('back'));
    for await (const message of subscription) {
      expect(new TextDecoder().decode(message.data)).toBe('back');
      break;
    }
  });
});
