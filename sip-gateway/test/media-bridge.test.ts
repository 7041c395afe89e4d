/**
 * The gateway's side of the media bridge, with this test as the engine on the bus and a bare RTP peer as the
 * phone: `start` carries the token; the phone's PCMA arrives as 8 kHz PCM16 frames; the engine's frames leave as
 * paced RTP; a mark is echoed once the audio before it has gone; `clear` drops what is queued (its marks never
 * echoed); `dtmf` goes out as RFC 4733 events; `hangup` is a BYE.
 */
import { createSocket, type Socket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import { encodeAlaw, sineWave } from '@parley/engine/audio';
import type { BusMessage } from '@parley/engine/bus';
import {
  decodeAudioFrame,
  encodeAudioFrame,
  isAudioFrame,
  sipCodecs,
  subjects,
  type MediaBridgeInbound,
} from '@parley/engine/protocol';
import { startBareGateway, type BareGateway } from './support/bare-gateway.ts';
import { header, RawCall, RawSip } from './support/raw-sip.ts';

let bare: BareGateway | undefined;
let sip: RawSip | undefined;
let phone: Socket | undefined;

afterEach(async () => {
  sip?.close();
  phone?.close();
  await bare?.close();
  bare = sip = phone = undefined;
});

interface Packet {
  payloadType: number;
  marker: boolean;
  timestamp: number;
  payload: Buffer;
}

describe('media bridge (gateway side)', () => {
  it('carries audio both ways and obeys mark, clear, dtmf and hangup', async () => {
    bare = await startBareGateway();
    sip = await RawSip.open(bare.gateway.sipPort);
    const rtp = createSocket('udp4');
    phone = rtp;
    await new Promise<void>((resolve) => rtp.bind(0, '127.0.0.1', resolve));
    const packets: Packet[] = [];
    let gatewayRtp: { port: number } | undefined;
    rtp.on('message', (data, info) => {
      gatewayRtp = { port: info.port };
      packets.push({
        payloadType: data[1]! & 0x7f,
        marker: (data[1]! & 0x80) !== 0,
        timestamp: data.readUInt32BE(4),
        payload: data.subarray(12),
      });
    });

    // Every call's `.in` (the bus is this test's alone), subscribed before the call so `start` is seen.
    const fromGateway: (MediaBridgeInbound | { type: 'audio'; samples: Int16Array })[] = [];
    const inbound = bare.bus.subscribe('v1.media.*.in');
    void (async () => {
      for await (const message of inbound as AsyncIterable<BusMessage>) {
        fromGateway.push(
          isAudioFrame(message.data)
            ? { type: 'audio', samples: decodeAudioFrame(message.data).samples }
            : sipCodecs.bridgeIn.decode(message.data),
        );
      }
    })();
    const call = new RawCall(sip);
    sip.send(call.request('INVITE', { body: call.sdp(rtp.address().port) }));
    const ok = await sip.waitFor((m) => m.status === 200);
    call.toTag = /;tag=([^;\s]+)/.exec(header(ok.text, 'To')!)![1];
    sip.send(call.request('ACK'));
    const callId = [...bare.gateway.calls.keys()][0]!;
    const toGateway = (data: string | Uint8Array) => bare!.bus.publish(subjects.mediaOut(callId), data);
    toGateway(sipCodecs.bridgeOut.encode({ type: 'accepted' }));

    // The phone talks: 25 packets of a 440 Hz tone in PCMA (the codec chosen from our offer's order).
    await expect.poll(() => gatewayRtp, { timeout: 2_000 }).toBeDefined();
    const tone = sineWave(440, 8_000, 4_000, 8_000);
    for (let i = 0; i < 25; i += 1) {
      const packet = Buffer.alloc(172);
      packet[0] = 0x80;
      packet[1] = 8;
      packet.writeUInt16BE(100 + i, 2);
      packet.writeUInt32BE(1_000 + i * 160, 4);
      packet.writeUInt32BE(0xabc, 8);
      Buffer.from(encodeAlaw(tone.subarray(i * 160, i * 160 + 160))).copy(packet, 12);
      rtp.send(packet, gatewayRtp!.port, '127.0.0.1');
      await new Promise((r) => setTimeout(r, 5));
    }
    await expect
      .poll(() => fromGateway.filter((m) => m.type === 'audio').length, { timeout: 2_000 })
      .toBeGreaterThanOrEqual(20);
    // RTP DTMF from the phone: event 5, three end packets with one timestamp, reported once.
    for (let n = 0; n < 6; n += 1) {
      const packet = Buffer.alloc(16);
      packet[0] = 0x80;
      packet[1] = 101;
      packet.writeUInt16BE(200 + n, 2);
      packet.writeUInt32BE(50_000, 4);
      packet.writeUInt32BE(0xabc, 8);
      packet[12] = 5;
      packet[13] = n >= 3 ? 0x80 | 10 : 10;
      packet.writeUInt16BE((n + 1) * 160, 14);
      rtp.send(packet, gatewayRtp!.port, '127.0.0.1');
    }
    await expect.poll(() => fromGateway.filter((m) => m.type === 'dtmf').length, { timeout: 2_000 }).toBe(1);
    expect(fromGateway.find((m) => m.type === 'dtmf')).toEqual({ type: 'dtmf', digit: '5' });
    expect(fromGateway[0]).toMatchObject({ type: 'start', streamToken: 'token-no-engine-holds', codec: 'PCMA' });

    // The engine talks: 1 s of audio, then a mark; the mark comes back once it has all gone out.
    const loud = sineWave(300, 8_000, 8_000, 12_000);
    packets.length = 0;
    for (let i = 0; i < 50; i += 1)
      toGateway(
        encodeAudioFrame({
          sampleRate: 8_000,
          requestNumber: 0,
          sequence: i,
          samples: loud.subarray(i * 160, i * 160 + 160),
        }),
      );
    toGateway(sipCodecs.bridgeOut.encode({ type: 'mark', name: 'clause-1' }));
    const started = performance.now();
    await expect
      .poll(() => fromGateway.some((m) => m.type === 'mark' && m.name === 'clause-1'), { timeout: 3_000 })
      .toBe(true);
    expect(performance.now() - started).toBeGreaterThan(800); // paced at 20 ms a packet, not sent at once
    const voiced = packets.filter((p) => p.payloadType === 8 && p.payload.some((b) => b !== 0xd5)).length;
    expect(voiced).toBeGreaterThanOrEqual(48);

    // Barge-in: 2 s queued, then clear: the rest never plays, and the mark behind it is never echoed.
    for (let i = 0; i < 100; i += 1)
      toGateway(
        encodeAudioFrame({
          sampleRate: 8_000,
          requestNumber: 0,
          sequence: 100 + i,
          samples: loud.subarray((i % 50) * 160, (i % 50) * 160 + 160),
        }),
      );
    toGateway(sipCodecs.bridgeOut.encode({ type: 'mark', name: 'clause-2' }));
    await new Promise((r) => setTimeout(r, 200));
    toGateway(sipCodecs.bridgeOut.encode({ type: 'clear' }));
    await new Promise((r) => setTimeout(r, 100));
    const sentAtClear = bare.gateway.calls.get(callId)!.rtp.stats.audioSent;
    await new Promise((r) => setTimeout(r, 500));
    expect(bare.gateway.calls.get(callId)!.rtp.stats.audioSent).toBe(sentAtClear);
    expect(sentAtClear).toBeLessThan(50 + 30);
    expect(fromGateway.some((m) => m.type === 'mark' && m.name === 'clause-2')).toBe(false);

    // DTMF to the phone: RFC 4733 events with one timestamp per digit and end packets.
    packets.length = 0;
    toGateway(sipCodecs.bridgeOut.encode({ type: 'dtmf', digits: '1#' }));
    await expect
      .poll(() => packets.filter((p) => p.payloadType === 101 && (p.payload[1]! & 0x80) !== 0).length, {
        timeout: 3_000,
      })
      .toBeGreaterThanOrEqual(6);
    const events = packets.filter((p) => p.payloadType === 101);
    expect([...new Set(events.map((p) => p.payload[0]))]).toEqual([1, 11]);
    expect(new Set(events.filter((p) => p.payload[0] === 1).map((p) => p.timestamp)).size).toBe(1);

    // The engine hangs up: BYE, the bridge says nothing more, the port is free.
    const before = sip.received.length;
    toGateway(sipCodecs.bridgeOut.encode({ type: 'hangup', reason: 'agent ended the call' }));
    const bye = await sip.waitFor((m) => m.method === 'BYE', 2_000, before);
    expect(bye.text).toMatch(/Reason: SIP;cause=200;text="agent ended the call"/);
    expect(fromGateway.at(-1)).toEqual({ type: 'stop', reason: 'agent ended the call' });
    expect(bare.gateway.health).toMatchObject({ activeCalls: 0, rtpPortsFree: bare.gateway.health.rtpPortsTotal });
    inbound.unsubscribe();
  }, 20_000);
});
