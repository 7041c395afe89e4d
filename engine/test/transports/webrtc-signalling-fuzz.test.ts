/**
 * A browser call's signalling fuzzed: random sequences of what a page can send on `/webrtc/<token>` — offers whose
 * SDP is garbage, truncated or huge, candidates of every wrong shape, text that is not JSON, JSON of the wrong
 * shape, binary frames, hang-ups in the middle. The transport must take every message without throwing or leaving
 * a promise rejected unhandled, send only JSON, close (if at all) with a code of its own protocol, and end its
 * events once hung up. The real offers and answers are in webrtc-call.test.ts; this finds the inputs nobody wrote.
 *
 * Long run: PARLEY_FUZZ_RUNS=2000 PARLEY_FUZZ_SEED=$RANDOM npx vitest run test/transports/webrtc-signalling-fuzz.test.ts
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { TransportEvent } from '../../src/transports/media-transport.ts';
import type { MediaSocket, MediaSocketListener } from '../../src/transports/media-server/media-server.ts';
import { WebRtcTransport } from '../../src/transports/webrtc/webrtc-transport.ts';

const RUNS = Number(process.env.PARLEY_FUZZ_RUNS ?? 60);
const SEED = Number(process.env.PARLEY_FUZZ_SEED ?? 20261127);
/** How long an offer is given to be answered or refused before the sequence is judged, ms. */
const SETTLE_MS = 50;
/** Codes the transport may close with: normal, unsupported (an offer it cannot answer), policy (no connection). */
const OWN_CLOSE_CODES = [1000, 1003, 1008];

/** A socket in memory: the page's messages are played into it; what the transport sends must be JSON. */
class FuzzSocket implements MediaSocket {
  readonly remoteAddress = '127.0.0.1';
  readonly bufferedBytes = 0;
  open = true;
  closedWith: { code: number; reason: string } | undefined;
  /** Messages handed to the transport (none once the socket has closed, as on a real one). */
  delivered = 0;
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
    if (!this.open) return;
    this.delivered += 1;
    this.#listener?.message(data, binary);
  }
}

const VALID_HEAD = 'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\n';
const sdp = fc.oneof(
  fc.string(),
  fc.constant(VALID_HEAD),
  fc.string().map((tail) => `${VALID_HEAD}m=audio 9 UDP/TLS/RTP/SAVPF 111\r\n${tail}`),
  fc.constant(`${VALID_HEAD}m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=rtpmap:111 opus/48000/2\r\na=setup:actpass\r\n`),
  fc.constant('x'.repeat(70_000)),
);
const candidate = fc.oneof(
  fc.record({ candidate: fc.string(), sdpMid: fc.option(fc.string()), sdpMLineIndex: fc.option(fc.integer()) }),
  fc.constant({ candidate: 'candidate:1 1 udp 2122260223 10.0.0.1 50000 typ host', sdpMid: '0', sdpMLineIndex: 0 }),
  fc.constant({ candidate: '' }),
  fc.constant(null),
  fc.string(),
);
const message = fc.oneof(
  {
    weight: 2,
    arbitrary: sdp.map((value) => ({ data: JSON.stringify({ type: 'offer', sdp: value }), binary: false })),
  },
  {
    weight: 3,
    arbitrary: candidate.map((value) => ({
      data: JSON.stringify({ type: 'candidate', candidate: value }),
      binary: false,
    })),
  },
  { weight: 1, arbitrary: fc.constant({ data: '{"type":"hangup"}', binary: false }) },
  { weight: 2, arbitrary: fc.jsonValue().map((value) => ({ data: JSON.stringify(value), binary: false })) },
  { weight: 2, arbitrary: fc.string().map((data) => ({ data, binary: false })) },
  { weight: 1, arbitrary: fc.string().map((data) => ({ data, binary: true })) },
);

it('takes any sequence of signalling messages without throwing, answering only JSON and closing only with its own codes', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(message, { maxLength: 8 }), async (messages) => {
      const socket = new FuzzSocket();
      const transport = new WebRtcTransport(socket, { connectTimeoutMs: 60_000 });
      const events: TransportEvent[] = [];
      const reading = (async () => {
        for await (const event of transport.events) events.push(event);
      })();
      for (const { data, binary } of messages) socket.receive(data, binary);
      // Offers are answered asynchronously: give what they started a moment before judging (no peer ever connects).
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      if (socket.closedWith) expect(OWN_CLOSE_CODES).toContain(socket.closedWith.code);
      transport.hangup('fuzz over');
      await reading;
      expect(socket.open).toBe(false);
      expect(events.filter((e) => e.type !== 'hangup')).toEqual([]);
      expect(transport.stats.messages).toBe(socket.delivered);
    }),
    { numRuns: RUNS, seed: SEED },
  );
}, 120_000);
