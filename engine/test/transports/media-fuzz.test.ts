/**
 * The carrier media stream fuzzed (issue 23, the other doors): for each carrier's protocol, random sequences of what
 * a far end can send — its own events in any order (media before start, a second start, marks never sent, stop
 * then more), media whose payload is not base64 or is huge, text that is not JSON, JSON of the wrong shape, NUL and
 * lone surrogates, binary frames. The transport must take every message without throwing, count each one, keep
 * the call up for anything but the carrier's own stop, bound what it holds, and end its events when hung up.
 * stream-faults.test.ts drives a fixed list of such messages through the real media server; this finds new ones.
 *
 * Long run: PARLEY_FUZZ_RUNS=5000 PARLEY_FUZZ_SEED=$RANDOM npx vitest run test/transports/media-fuzz.test.ts
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { carrierA } from '../../src/transports/carrier-ws/carrier-a.ts';
import { carrierB } from '../../src/transports/carrier-ws/carrier-b.ts';
import { carrierC } from '../../src/transports/carrier-ws/carrier-c.ts';
import type { CarrierProtocol } from '../../src/transports/carrier-ws/carrier-protocol.ts';
import { CarrierTransport } from '../../src/transports/carrier-ws/carrier-transport.ts';
import type { TransportEvent } from '../../src/transports/media-transport.ts';
import {
  CLOSE_CODES,
  type MediaSocket,
  type MediaSocketListener,
} from '../../src/transports/media-server/media-server.ts';
import { startWsMediaServer } from '../../src/transports/media-server/ws-media-server.ts';
import { WebSocket } from 'ws';

const RUNS = Number(process.env.PARLEY_FUZZ_RUNS ?? 300);
const SEED = Number(process.env.PARLEY_FUZZ_SEED ?? 20261127);

/** A socket in memory: the far end's messages are played into it; what the transport sends must be JSON. */
class FuzzSocket implements MediaSocket {
  readonly remoteAddress = '127.0.0.1';
  bufferedBytes = 0;
  open = true;
  closedWith: { code: number; reason: string } | undefined;
  #listener: MediaSocketListener | undefined;

  listen(listener: MediaSocketListener): void {
    this.#listener = listener;
  }

  send(text: string): boolean {
    JSON.parse(text);
    return this.open;
  }

  close(code: number, reason: string): void {
    if (!this.open) return;
    this.open = false;
    this.closedWith = { code, reason };
    this.#listener?.closed(code, reason);
  }

  terminate(): void {
    this.close(1006, '');
  }

  receive(data: string, binary: boolean): void {
    this.#listener?.message(data, binary);
  }
}

/** Each carrier's ids and how its messages name the stream (carrier-transport.test.ts shows the real shapes). */
const CARRIERS: Array<{ protocol: CarrierProtocol; stream: Record<string, string>; start: object }> = [
  {
    protocol: carrierB,
    stream: { streamSid: 'MZ1' },
    start: {
      event: 'start',
      start: { streamSid: 'MZ1', callSid: 'CA1', mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000 } },
    },
  },
  {
    protocol: carrierA,
    stream: { streamId: 'S1' },
    start: {
      event: 'start',
      start: { streamId: 'S1', callId: 'C1', mediaFormat: { encoding: 'audio/x-l16', sampleRate: 8000 } },
    },
  },
  {
    protocol: carrierC,
    stream: { stream_sid: 'MZ9' },
    start: { event: 'start', stream_sid: 'MZ9', start: { stream_sid: 'MZ9', media_format: { sample_rate: '8000' } } },
  },
];

const hostileText = fc.constantFrom(
  '',
  '\u0000',
  'a\uD800b',
  '%',
  '!!!not base64!!!',
  '====',
  'A',
  'x'.repeat(300_000),
);
const base64Audio = fc
  .uint8Array({ minLength: 0, maxLength: 800 })
  .map((bytes) => Buffer.from(bytes).toString('base64'));
const chunk = fc.oneof(fc.nat({ max: 100 }).map(String), fc.constantFrom('-1', '1e20', 'NaN', '', null, 7, -3));

function farEndMessage(carrier: (typeof CARRIERS)[number]): fc.Arbitrary<{ data: string; binary: boolean }> {
  const { stream, start } = carrier;
  const json = (value: fc.Arbitrary<unknown>) =>
    value.map((v) => ({ data: JSON.stringify(v) ?? 'null', binary: false }));
  const media = fc
    .record(
      {
        payload: fc.oneof({ weight: 4, arbitrary: base64Audio }, { weight: 1, arbitrary: hostileText }),
        chunk,
        timestamp: chunk,
        track: fc.constantFrom('inbound', 'outbound', 'both_tracks', 7),
      },
      { requiredKeys: ['payload'] },
    )
    .map((media) => ({ event: 'media', ...stream, media }));
  const oddities = fc.constantFrom<unknown>(
    { event: 'connected' },
    { event: 42 },
    { event: 'media' },
    { event: 'media', media: null },
    { event: '__proto__' },
    { event: 'start', start: null },
    { event: 'start', start: { mediaFormat: { sampleRate: -1, encoding: 'audio/x-mulaw' } } },
    [1, 2],
    null,
    'text',
    { event: 'media', ...stream, media: { payload: { nested: true } } },
  );
  // Weighted like a real stream, mostly media; the carrier's stop is rare, since nothing after it is heard.
  return fc.oneof(
    { weight: 1, arbitrary: json(fc.constant(start)) },
    { weight: 12, arbitrary: json(media) },
    {
      weight: 1,
      arbitrary: json(fc.oneof(fc.string(), hostileText).map((name) => ({ event: 'mark', ...stream, mark: { name } }))),
    },
    {
      weight: 1,
      arbitrary: json(
        fc
          .oneof(fc.constantFrom('1', '#', '*', 'A'), hostileText, fc.constant(5))
          .map((digit) => ({ event: 'dtmf', ...stream, dtmf: { digit } })),
      ),
    },
    { weight: 1, arbitrary: json(fc.constant({ event: 'stop', ...stream, stop: { reason: 'callended' } })) },
    { weight: 2, arbitrary: json(oddities) },
    { weight: 1, arbitrary: json(fc.jsonValue({ maxDepth: 4 })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('not json', '{', '{"event":"media",', '\u0000', '['.repeat(10_000))
        .map((data) => ({ data, binary: false })),
    },
    {
      weight: 1,
      arbitrary: fc
        .uint8Array({ maxLength: 2000 })
        .map((bytes) => ({ data: Buffer.from(bytes).toString('latin1'), binary: true })),
    },
  );
}

/** Mostly streams that open with the carrier's start (so media is taken and audio flows), some that never do. */
function streamOf(carrier: (typeof CARRIERS)[number]): fc.Arbitrary<Array<{ data: string; binary: boolean }>> {
  const messages = fc.array(farEndMessage(carrier), { maxLength: 40, size: 'medium' });
  const start = { data: JSON.stringify(carrier.start), binary: false };
  return fc.oneof(
    { weight: 3, arbitrary: messages.map((rest) => [start, ...rest]) },
    { weight: 1, arbitrary: messages },
  );
}

describe('carrier media streams, fuzzed', () => {
  CARRIERS.forEach((carrier, index) => {
    it(carrier.protocol.carrier, { timeout: 120_000 }, async () => {
      // Runs whose stream started and took media: without some, the fuzz never got past the start.
      let heard = 0;
      await fc.assert(
        fc.asyncProperty(streamOf(carrier), async (messages) => {
          const socket = new FuzzSocket();
          const transport = new CarrierTransport(socket, carrier.protocol, { startTimeoutMs: 60_000 });
          const events: TransportEvent[] = [];
          const reading = (async () => {
            for await (const event of transport.events) events.push(event);
          })();
          let stopped = false;
          for (const message of messages) {
            stopped ||= !message.binary && message.data.includes('"event":"stop"');
            socket.receive(message.data, message.binary);
          }
          await new Promise((resolve) => setImmediate(resolve));
          expect(transport.stats.messages).toBe(messages.length);
          // Faults never end a call by themselves: only the carrier's stop (or its close) does.
          if (!stopped) expect(socket.closedWith).toBeUndefined();
          if (transport.stats.media > 0) heard += 1;
          for (const event of events) {
            if (event.type === 'audio') expect(event.samples.length).toBeLessThanOrEqual(16_000 * 10);
          }
          transport.hangup('fuzz done');
          await expect(
            Promise.race([reading.then(() => 'ended'), new Promise((r) => setTimeout(() => r('still open'), 2000))]),
          ).resolves.toBe('ended');
        }),
        { numRuns: RUNS, seed: SEED + index, endOnFailure: true },
      );
      expect(heard).toBeGreaterThan(RUNS / 20);
    });
  });
});

describe('the media server, over a real socket', () => {
  it('closes a connection that sends a frame over the bound (1009), takes invalid UTF-8, and keeps serving', async () => {
    const received: Array<{ data: string; binary: boolean }> = [];
    const server = await startWsMediaServer({
      port: 0,
      host: '127.0.0.1',
      maxMessageBytes: 64 * 1024,
      router: () => (socket) =>
        socket.listen({ message: (data, binary) => received.push({ data, binary }), closed: () => {} }),
    });
    try {
      const open = async () => {
        const ws = new WebSocket(`ws://127.0.0.1:${server.port}/stream`);
        await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
        return ws;
      };
      const big = await open();
      const closed = new Promise<number>((resolve) => big.once('close', (code) => resolve(code)));
      big.send('x'.repeat(64 * 1024 + 1));
      expect(await closed).toBe(CLOSE_CODES.tooBig);

      const next = await open();
      next.send(Buffer.from([0xff, 0xfe, 0xc0, 0x80]), { binary: false });
      next.send('{"event":"media","media":{"payload":"!!"}}');
      await expect.poll(() => received.length).toBe(2);
      next.close();
    } finally {
      await server.close();
    }
  });
});
