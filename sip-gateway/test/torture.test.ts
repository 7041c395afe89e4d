/**
 * Malformed and odd SIP (test/torture/torture-messages.ts, RFC 4475 in spirit) against a running gateway: every
 * message gets the answer it should — 400 for malformed requests it can name, RFC 3261's refusal where one
 * applies, 200 for the odd but valid — or nothing; the gateway survives all of them and still answers. Over TCP,
 * a message split across writes is framed whole and a broken Content-Length closes the connection. A flood
 * from one source is cut by its rate limit, and the source is heard again once it slows down.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBareGateway, type BareGateway } from './support/bare-gateway.ts';
import { RawCall, RawSip } from './support/raw-sip.ts';
import { TORTURE } from './torture/torture-messages.ts';

let bare: BareGateway;

/** A low per-source rate, so a flood the test can send (without the kernel dropping it first) is cut by it. */
const RATE = { perSecond: 100, burst: 200 };

beforeAll(async () => {
  bare = await startBareGateway({ sourceRate: RATE });
});

afterAll(async () => {
  await bare?.close();
});

async function optionsAnswered(): Promise<boolean> {
  const sip = await RawSip.open(bare.gateway.sipPort);
  try {
    sip.send(new RawCall(sip).request('OPTIONS'));
    return (await sip.waitFor((m) => m.status === 200, 2_000)).status === 200;
  } finally {
    sip.close();
  }
}

describe('SIP torture set', () => {
  it(`answers or drops each of ${TORTURE.length} malformed and odd messages as it should, and survives them`, async () => {
    expect(TORTURE.length).toBeGreaterThanOrEqual(50);
    const sockets = await Promise.all(TORTURE.map(() => RawSip.open(bare.gateway.sipPort)));
    TORTURE.forEach((test, i) => {
      const sip = sockets[i]!;
      const id = `t${i}x${sip.port}`;
      const fill = (text: string) => text.replaceAll('{id}', id).replaceAll('{port}', String(sip.port));
      sip.send(typeof test.message === 'string' ? fill(test.message) : test.message);
    });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const outcomes = TORTURE.map((test, i) => {
      const finals = sockets[i]!.received.filter((m) => (m.status ?? 0) >= 200);
      return { name: test.name, expected: test.expect, got: finals[0]?.status ?? 'drop' };
    });
    for (const sip of sockets) sip.close();
    expect(outcomes.filter((o) => o.got !== o.expected)).toEqual([]);
    expect(outcomes.filter((o) => o.expected === 400).length).toBeGreaterThanOrEqual(10);
    expect(await optionsAnswered()).toBe(true);
    const health = bare.gateway.health;
    expect(health.sip.malformed).toBeGreaterThanOrEqual(outcomes.filter((o) => o.expected === 400).length);
    expect(health.activeCalls).toBe(0);
  });

  it('frames TCP messages split across writes, and closes a connection whose framing breaks', async () => {
    const socket = connect(bare.gateway.sipPort, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString('latin1')));
    const port = socket.localPort!;
    const options = [
      'OPTIONS sip:ping@127.0.0.1 SIP/2.0',
      `Via: SIP/2.0/TCP 127.0.0.1:${port};branch=z9hG4bKtcp1`,
      'From: <sip:c@127.0.0.1>;tag=1',
      'To: <sip:p@127.0.0.1>',
      'Call-ID: tcp1@torture',
      'CSeq: 1 OPTIONS',
      'Content-Length: 5',
      '',
      'hello',
    ].join('\r\n');
    const cut = [20, 90, 150];
    let at = 0;
    for (const end of [...cut, options.length]) {
      socket.write(options.slice(at, end));
      at = end;
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    await expect.poll(() => data, { timeout: 2_000 }).toMatch(/^SIP\/2\.0 200 OK/);
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(options.replace('Content-Length: 5', 'Content-Length: lots'));
    await closed;
    expect(await optionsAnswered()).toBe(true);
  });

  it('rate limits a flood from one source, then hears it again', async () => {
    const sip = await RawSip.open(bare.gateway.sipPort);
    const limited = bare.gateway.health.sip.rateLimited;
    const call = new RawCall(sip);
    // 1,500 messages over 1.5 s (50 every 50 ms): 1,000 a second, ten times the rate.
    const sent = 1_500;
    for (let i = 0; i < sent; i += 50) {
      for (let j = i; j < i + 50; j += 1) sip.send(call.request('OPTIONS', { cseq: j + 1 }));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const answered = sip.received.filter((m) => m.status === 200).length;
    // The burst, then the rate: about 200 + 100 × 1.5 s.
    expect(answered).toBeGreaterThan(RATE.burst);
    expect(answered).toBeLessThan(RATE.burst + RATE.perSecond * 2.5);
    expect(bare.gateway.health.sip.rateLimited - limited).toBeGreaterThan(sent * 0.6);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const before = sip.received.length;
    sip.send(new RawCall(sip).request('OPTIONS'));
    await sip.waitFor((m) => m.status === 200, 2_000, before);
    sip.close();
  }, 15_000);
});
