/**
 * What only the NATS implementation has: a server URL, a server-side payload limit and connection failures.
 * The behaviour both buses share is in bus-contract.test.ts (which also fails the run under PARLEY_REQUIRE_ALL=1
 * when NATS_URL is missing).
 */
import { describe, expect, it } from 'vitest';
import { connectBus, NatsBus } from '../src/bus/index.ts';
import { rejection, thrown, uniquePrefix } from './support/bus-test-kit.ts';

const url = process.env.NATS_URL ?? '';
const suiteName = url === '' ? 'NatsBus specifics (skipped: NATS_URL is unset)' : `NatsBus specifics at ${url}`;
/** The largest max_payload a NATS server may be configured with, in bytes: one more is refused by any server. */
const NATS_HARD_MAX_PAYLOAD_BYTES = 64 * 1024 * 1024;

describe.skipIf(url === '')(suiteName, () => {
  it('describes itself by the server URL and is what connectBus gives for a URL', async () => {
    const bus = await connectBus(url, 'parley-bus-test');
    try {
      expect(bus).toBeInstanceOf(NatsBus);
      expect(bus.description).toBe(url);
    } finally {
      await bus.close();
    }
  });

  it('keeps credentials in the URL out of its description', async () => {
    const server = new URL(url);
    server.username = 'parley';
    server.password = 'secret';
    // The test server requires no credentials, so it accepts (and ignores) these.
    const bus = await NatsBus.connect(server.toString(), { name: 'parley-bus-test' });
    try {
      expect(bus.description).not.toContain('secret');
      expect(bus.description).toContain(server.host);
    } finally {
      await bus.close();
    }
  });

  it('refuses a payload above the server max_payload with payload_too_large', async () => {
    const bus = await NatsBus.connect(url, { name: 'parley-bus-test' });
    try {
      const huge = new Uint8Array(NATS_HARD_MAX_PAYLOAD_BYTES + 1);
      expect(thrown(() => bus.publish(`${uniquePrefix()}.huge`, huge)).code).toBe('payload_too_large');
    } finally {
      await bus.close();
    }
  });

  it('fails to connect to a port with no server with disconnected', async () => {
    const err = await rejection(NatsBus.connect('nats://127.0.0.1:1', { name: 'parley-bus-test' }));
    expect(err.code).toBe('disconnected');
    expect(err.retryable).toBe(true);
  });
});
