import { describe, expect, it } from 'vitest';
import { decodeMulaw, encodeMulaw } from '../../audio/g711.ts';
import { pcm16ToBytesLE } from '../../audio/pcm16.ts';
import type { TransportEvent } from '../media-transport.ts';
import type { MediaSocket, MediaSocketListener } from '../media-server/media-server.ts';
import { carrierA } from './carrier-a.ts';
import { carrierB } from './carrier-b.ts';
import { carrierC } from './carrier-c.ts';
import type { CarrierProtocol } from './carrier-protocol.ts';
import { CarrierTransport, INBOUND_EVENT_CAPACITY, MAX_OUTBOUND_BUFFERED_BYTES } from './carrier-transport.ts';

/** A socket in memory: what the transport sent, and a way to play the carrier's messages and its close. */
class FakeSocket implements MediaSocket {
  readonly remoteAddress = '127.0.0.1';
  readonly sent: Record<string, unknown>[] = [];
  bufferedBytes = 0;
  open = true;
  closedWith: { code: number; reason: string } | undefined;
  #listener: MediaSocketListener | undefined;

  listen(listener: MediaSocketListener): void {
    this.#listener = listener;
  }

  send(text: string): boolean {
    if (!this.open) return false;
    this.sent.push(JSON.parse(text) as Record<string, unknown>);
    return true;
  }

  close(code: number, reason: string): void {
    if (!this.open) return;
    this.open = false;
    this.closedWith = { code, reason };
    this.#listener?.closed(code, reason);
  }

  terminate(): void {
    this.peerClosed(1006);
  }

  receive(message: unknown, binary = false): void {
    this.#listener?.message(typeof message === 'string' ? message : JSON.stringify(message), binary);
  }

  peerClosed(code: number, reason = ''): void {
    this.open = false;
    this.#listener?.closed(code, reason);
  }

  /** Outbound messages of one event. */
  of(event: string): Record<string, unknown>[] {
    return this.sent.filter((m) => m.event === event);
  }
}

function transportOn(protocol: CarrierProtocol, start: object) {
  const socket = new FakeSocket();
  const transport = new CarrierTransport(socket, protocol, { startTimeoutMs: 200 });
  const events: TransportEvent[] = [];
  const reading = (async () => {
    for await (const event of transport.events) events.push(event);
  })();
  socket.receive(start);
  return { socket, transport, events, reading };
}

const twilioStart = {
  event: 'start',
  start: { streamSid: 'MZ1', callSid: 'CA1', mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000 } },
};
const plivoStart = (encoding = 'audio/x-mulaw', sampleRate = 8000) => ({
  event: 'start',
  start: { streamId: 'S1', callId: 'C1', mediaFormat: { encoding, sampleRate } },
});
const exotelStart = {
  event: 'start',
  stream_sid: 'MZ9',
  start: { stream_sid: 'MZ9', media_format: { sample_rate: '8000' } },
};

/** `ms` of a 400 Hz tone at 8 kHz as μ-law bytes, base64. */
function mulawTone(ms: number, offset = 0): string {
  const samples = Int16Array.from({ length: ms * 8 }, (_, i) =>
    Math.round(8000 * Math.sin((2 * Math.PI * 400 * (i + offset)) / 8000)),
  );
  return Buffer.from(encodeMulaw(samples)).toString('base64');
}

const audioFrames = (events: TransportEvent[]) => events.filter((e) => e.type === 'audio');
const flush = () => new Promise((r) => setImmediate(r));

describe('a carrier stream as a transport', () => {
  it('starts on the carrier’s start, and turns its media into 20 ms frames of 16 kHz audio', async () => {
    const { socket, transport, events } = transportOn(carrierB, twilioStart);
    await expect(transport.started).resolves.toMatchObject({ streamId: 'MZ1', callId: 'CA1' });
    for (let chunk = 1; chunk <= 50; chunk += 1)
      socket.receive({
        event: 'media',
        streamSid: 'MZ1',
        media: { chunk: String(chunk), payload: mulawTone(20, chunk * 160) },
      });
    await flush();
    const frames = audioFrames(events);
    // One second in, one second out, less the resampler's few samples of lookahead.
    expect(frames.length).toBeGreaterThanOrEqual(49);
    expect(frames.every((f) => f.type === 'audio' && f.samples.length === 320)).toBe(true);
    expect(transport.stats).toMatchObject({ media: 50, malformed: 0, duplicateChunks: 0, concealedFrames: 0 });
  });

  it('fills a gap in the chunk counter and drops a repeated chunk', async () => {
    const { socket, transport, events } = transportOn(carrierB, twilioStart);
    await transport.started;
    for (const chunk of [1, 2, 3, 3, 2, 7, 8])
      socket.receive({ event: 'media', streamSid: 'MZ1', media: { chunk: String(chunk), payload: mulawTone(20) } });
    await flush();
    expect(transport.stats).toMatchObject({ duplicateChunks: 2, concealedFrames: 3 });
    // 3 + 3 concealed + 2 frames: 8 frames of caller time, less lookahead.
    expect(audioFrames(events).length).toBeGreaterThanOrEqual(7);
  });

  it('takes a burst of 2 s at once without losing a frame, and holds at most its bound', async () => {
    const socket = new FakeSocket();
    const transport = new CarrierTransport(socket, carrierB);
    socket.receive(twilioStart);
    await transport.started;
    // Nobody reads: the session has stalled. 2 s fit; 10 s overflow the bound, losing the oldest audio only.
    socket.receive({ event: 'dtmf', streamSid: 'MZ1', dtmf: { digit: '1' } });
    for (let chunk = 1; chunk <= 100; chunk += 1)
      socket.receive({ event: 'media', streamSid: 'MZ1', media: { chunk: String(chunk), payload: mulawTone(20) } });
    expect(transport.stats.droppedFrames).toBe(0);
    for (let chunk = 101; chunk <= 500; chunk += 1)
      socket.receive({ event: 'media', streamSid: 'MZ1', media: { chunk: String(chunk), payload: mulawTone(20) } });
    expect(transport.stats.droppedFrames).toBeGreaterThan(500 - INBOUND_EVENT_CAPACITY - 5);
    const events: TransportEvent[] = [];
    socket.peerClosed(1000);
    for await (const event of transport.events) events.push(event);
    expect(events[0]).toEqual({ type: 'dtmf', digit: '1' });
    expect(events.at(-1)).toEqual({ type: 'hangup', reason: 'stream closed', dropped: false });
  });

  it('sends agent audio in the carrier’s format, a mark behind each clause, and reports the echo as played', async () => {
    const { socket, transport, events } = transportOn(carrierB, twilioStart);
    await transport.started;
    const frame = Int16Array.from({ length: 320 }, (_, i) => Math.round(6000 * Math.sin(i / 5)));
    for (let i = 0; i < 10; i += 1) transport.send(frame);
    transport.mark('t1c0');
    const media = socket.of('media');
    const bytes = media.reduce((n, m) => n + Buffer.from((m.media as { payload: string }).payload, 'base64').length, 0);
    // 200 ms of 8 kHz μ-law, all of it before the mark (the resampler's tail is flushed ahead of it).
    expect(bytes).toBe(1600);
    expect(socket.sent.at(-1)).toEqual({ event: 'mark', streamSid: 'MZ1', mark: { name: 't1c0' } });
    expect(
      decodeMulaw(Buffer.from((media[3]!.media as { payload: string }).payload, 'base64')).some(
        (v) => Math.abs(v) > 1000,
      ),
    ).toBe(true);
    socket.receive({ event: 'mark', streamSid: 'MZ1', mark: { name: 't1c0' } });
    await flush();
    expect(events).toContainEqual({ type: 'mark', name: 't1c0' });
    expect(transport.stats).toMatchObject({ marksSent: 1, marksPlayed: 1 });
  });

  it('on a clear, tells the carrier, and does not report the marks it dropped as played (Twilio echoes them)', async () => {
    const { socket, transport, events } = transportOn(carrierB, twilioStart);
    await transport.started;
    transport.send(new Int16Array(320).fill(3000));
    transport.mark('t1c0');
    transport.send(new Int16Array(320).fill(3000));
    transport.mark('t1c1');
    transport.clear();
    expect(socket.sent.at(-1)).toEqual({ event: 'clear', streamSid: 'MZ1' });
    socket.receive({ event: 'mark', streamSid: 'MZ1', mark: { name: 't1c0' } });
    socket.receive({ event: 'mark', streamSid: 'MZ1', mark: { name: 't1c1' } });
    await flush();
    expect(events.filter((e) => e.type === 'mark')).toEqual([]);
    expect(transport.stats).toMatchObject({ clears: 1, marksCleared: 2, marksPlayed: 0, malformed: 0 });
  });

  it('on carrier-a, sends clearAudio, takes clearedAudio quietly, and plays DTMF with sendDTMF', async () => {
    const { socket, transport, events } = transportOn(carrierA, plivoStart());
    await transport.started;
    transport.send(new Int16Array(320).fill(3000));
    transport.mark('t1c0');
    transport.clear();
    socket.receive({ event: 'clearedAudio', sequenceNumber: 3, streamId: 'S1' });
    transport.sendDigits!('12#');
    transport.sendDigits!('not digits');
    await flush();
    expect(socket.of('clearAudio')).toEqual([{ event: 'clearAudio', streamId: 'S1' }]);
    expect(socket.of('sendDTMF')).toEqual([{ event: 'sendDTMF', dtmf: '12#' }]);
    expect(socket.of('playAudio')[0]).toMatchObject({
      streamId: 'S1',
      media: { contentType: 'audio/x-mulaw', sampleRate: 8000 },
    });
    expect(events.filter((e) => e.type === 'mark')).toEqual([]);
    expect(transport.stats).toMatchObject({ malformed: 0, unknown: 0, marksCleared: 1 });
    expect(new CarrierTransport(new FakeSocket(), carrierB).sendDigits).toBeUndefined();
  });

  it('on carrier-a at 16 kHz L16, passes audio through without resampling', async () => {
    const { socket, transport, events } = transportOn(carrierA, plivoStart('audio/x-l16', 16000));
    await transport.started;
    const frame = Int16Array.from({ length: 320 }, (_, i) => i * 10);
    socket.receive({
      event: 'media',
      streamId: 'S1',
      media: { track: 'inbound', chunk: 1, payload: pcm16ToBytesLE(frame).toString('base64') },
    });
    transport.send(frame);
    await flush();
    expect(audioFrames(events)).toEqual([{ type: 'audio', samples: frame }]);
    expect(Buffer.from((socket.of('playAudio')[0]!.media as { payload: string }).payload, 'base64')).toEqual(
      pcm16ToBytesLE(frame),
    );
  });

  it('on carrier-c, gathers agent audio into 100 ms payloads of whole 320-byte blocks, and pads the tail at a mark', async () => {
    const { socket, transport } = transportOn(carrierC, exotelStart);
    await transport.started;
    for (let i = 0; i < 12; i += 1) transport.send(new Int16Array(320).fill(2000));
    const sizes = () =>
      socket.of('media').map((m) => Buffer.from((m.media as { payload: string }).payload, 'base64').length);
    expect(sizes()).toEqual([1600, 1600]);
    transport.mark('t1c0');
    expect(sizes().length).toBe(3);
    expect(sizes().every((n) => n % 320 === 0)).toBe(true);
    expect(socket.sent.at(-1)).toEqual({ event: 'mark', stream_sid: 'MZ9', mark: { name: 't1c0' } });
  });

  it('counts as sent only the agent audio that went out: none once the socket is closing', async () => {
    const { socket, transport } = transportOn(carrierB, twilioStart);
    await transport.started;
    for (let i = 0; i < 5; i += 1) transport.send(new Int16Array(320).fill(2000));
    const sent = transport.stats.sentPayloads;
    expect(sent).toBe(socket.of('media').length);
    expect(sent).toBeGreaterThan(0);
    socket.open = false;
    for (let i = 0; i < 5; i += 1) transport.send(new Int16Array(320).fill(2000));
    expect(transport.stats.sentPayloads).toBe(sent);
  });

  it('drops agent audio instead of queueing it behind a far end that stopped reading', async () => {
    const { socket, transport } = transportOn(carrierB, twilioStart);
    await transport.started;
    socket.bufferedBytes = MAX_OUTBOUND_BUFFERED_BYTES + 1;
    transport.send(new Int16Array(320));
    transport.send(new Int16Array(320));
    expect(socket.of('media')).toEqual([]);
    expect(transport.stats.droppedPayloads).toBeGreaterThanOrEqual(1);
  });

  it('counts and ignores what is not the carrier’s protocol, and media before the start', async () => {
    const socket = new FakeSocket();
    const transport = new CarrierTransport(socket, carrierB);
    socket.receive({ event: 'media', streamSid: 'MZ1', media: { payload: mulawTone(20) } });
    socket.receive('{{{');
    socket.receive('bytes', true);
    socket.receive({ event: 'surprise' });
    socket.receive(twilioStart);
    socket.receive(twilioStart);
    socket.receive({ event: 'mark', streamSid: 'MZ1', mark: { name: 'never-sent' } });
    await transport.started;
    expect(transport.stats).toMatchObject({ malformed: 5, unknown: 1, media: 0 });
    expect(transport.stats.faults).toEqual([
      'media before start',
      'not JSON',
      'binary message',
      'unknown event surprise',
      'a second start',
    ]);
    transport.hangup('done');
  });

  it('ends as dropped when the connection is lost, as hung up on a close frame or a stop', async () => {
    const lost = transportOn(carrierC, exotelStart);
    await lost.transport.started;
    lost.socket.peerClosed(1006);
    await lost.reading;
    expect(lost.events.at(-1)).toEqual({ type: 'hangup', reason: 'media connection lost (1006)', dropped: true });

    const stopped = transportOn(carrierC, exotelStart);
    await stopped.transport.started;
    stopped.socket.receive({ event: 'stop', stream_sid: 'MZ9', stop: { reason: 'callended' } });
    await stopped.reading;
    expect(stopped.events.at(-1)).toEqual({ type: 'hangup', reason: 'stream stopped: callended' });
    // Our own hang-up closes the socket normally, once.
    stopped.transport.hangup('call over');
    stopped.transport.hangup('call over');
    expect(stopped.socket.closedWith).toEqual({ code: 1000, reason: 'call over' });
  });

  it('gives up a stream that never says start, with a policy close', async () => {
    const socket = new FakeSocket();
    const transport = new CarrierTransport(socket, carrierA, { startTimeoutMs: 30 });
    await expect(transport.started).rejects.toThrow(/no start/);
    expect(socket.closedWith).toEqual({ code: 1008, reason: 'no start message' });
  });
});
