/**
 * The SIP gateway's media bridge as the engine sees it, with this test as the gateway on the bus: a dispatched
 * call is claimed by `start` with its token (`accepted`), and a bad token is `rejected` without touching the
 * call; the transport turns 8 kHz frames into the session's 16 kHz ones and back, flushes before a mark, reports
 * echoed marks, forgets them at `clear`, passes DTMF, and ends the call at `stop` (the session's `ended` event).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bus, BusMessage } from '../../src/bus/index.ts';
import { decodeAudioFrame, encodeAudioFrame, isAudioFrame, sipCodecs, subjects } from '../../src/protocol/index.ts';
import { sineWave, toneAmplitude } from '../../src/audio/tone.ts';
import { BusBridgeTransport } from '../../src/transports/bus-bridge/bus-bridge-transport.ts';
import type { TransportEvent } from '../../src/transports/media-transport.ts';
import { fabrics } from '../support/bus-fabric.ts';
import { scriptedChat, scriptedStt, toneTts } from '../support/scripted-providers.ts';
import { carrierCallSpec, startMediaEngine, type MediaEngine } from './support/media-engine.ts';

for (const fabric of fabrics()) {
  describe(`bus media bridge (${fabric.name})`, () => {
    let engine: MediaEngine;
    let gateway: Bus;

    beforeAll(async () => {
      // The caller's DTMF starts a turn: the model has an answer for it (an empty script would fail the turn, and the
      // call would end `failed` whenever that came before the caller's hang-up).
      engine = await startMediaEngine(fabric, {
        stt: scriptedStt([]),
        tts: toneTts(),
        llm: scriptedChat([{ text: 'You pressed seven.' }]),
      });
      gateway = await fabric.connect();
    });

    afterAll(async () => {
      await engine?.close();
      await fabric.close();
    });

    function engineSide(callId: string): {
      messages: (ReturnType<typeof sipCodecs.bridgeOut.decode> | { type: 'audio'; samples: Int16Array })[];
    } {
      const messages: ReturnType<typeof engineSide>['messages'] = [];
      const subscription = gateway.subscribe(subjects.mediaOut(callId));
      void (async () => {
        for await (const message of subscription as AsyncIterable<BusMessage>)
          messages.push(
            isAudioFrame(message.data)
              ? { type: 'audio', samples: decodeAudioFrame(message.data).samples }
              : sipCodecs.bridgeOut.decode(message.data),
          );
      })();
      return { messages };
    }

    it('claims a dispatched call with the start token, runs it, and ends it at stop', async () => {
      const spec = carrierCallSpec({ greetingMessage: 'Hello there.' });
      const call = await engine.dispatch(spec);
      const { messages } = engineSide(spec.callId);
      await gateway.flush();
      gateway.publish(
        subjects.mediaIn(spec.callId),
        sipCodecs.bridgeIn.encode({
          type: 'start',
          streamToken: call.streamToken,
          codec: 'PCMU',
          gatewayId: 'gw-test',
        }),
      );
      await expect.poll(() => messages[0], { timeout: 5_000 }).toEqual({ type: 'accepted' });
      // The greeting (a tone from the test TTS) comes back as 8 kHz frames of 160 samples.
      await expect
        .poll(() => messages.filter((m) => m.type === 'audio').length, { timeout: 5_000 })
        .toBeGreaterThan(10);
      const frames = messages.flatMap((m) => (m.type === 'audio' ? [m.samples] : []));
      expect(frames.every((f) => f.length === 160)).toBe(true);
      for (let i = 0; i < 50; i += 1)
        gateway.publish(
          subjects.mediaIn(spec.callId),
          encodeAudioFrame({ sampleRate: 8_000, requestNumber: 0, sequence: i, samples: new Int16Array(160) }),
        );
      gateway.publish(subjects.mediaIn(spec.callId), sipCodecs.bridgeIn.encode({ type: 'dtmf', digit: '7' }));
      await engine.waitFor(spec.callId, (e) => e.type === 'dtmf' && e.digit === '7');
      gateway.publish(subjects.mediaIn(spec.callId), sipCodecs.bridgeIn.encode({ type: 'stop', reason: 'remote_bye' }));
      const ended = await engine.waitFor(spec.callId, (e) => e.type === 'ended');
      expect(ended).toMatchObject({ type: 'ended', reason: 'caller_hangup', outcome: 'completed' });
    });

    it('rejects a bad token without spending the call, which a good one then claims', async () => {
      const spec = carrierCallSpec();
      const call = await engine.dispatch(spec);
      const { messages } = engineSide(spec.callId);
      await gateway.flush();
      gateway.publish(
        subjects.mediaIn(spec.callId),
        sipCodecs.bridgeIn.encode({
          type: 'start',
          streamToken: 'not.a.real.token',
          codec: 'PCMA',
          gatewayId: 'gw-test',
        }),
      );
      await expect.poll(() => messages[0], { timeout: 5_000 }).toEqual({ type: 'rejected', reason: 'forged' });
      // The listener is gone after a refusal; the call is still pending for its media, e.g. a carrier stream.
      expect(engine.role.claim(call.streamToken)).toMatchObject({ ok: true, callId: spec.callId });
    });
  });
}

describe('BusBridgeTransport', () => {
  it('resamples both ways, flushes before marks, forgets marks at clear, and reports echoes in order', async () => {
    const published: { subject: string; data: Uint8Array }[] = [];
    const bus = {
      publish: (subject: string, data: Uint8Array | string) =>
        published.push({ subject, data: typeof data === 'string' ? new TextEncoder().encode(data) : data }),
    } as unknown as Bus;
    const transport = new BusBridgeTransport(bus, 'call1');
    const events: TransportEvent[] = [];
    void (async () => {
      for await (const event of transport.events) events.push(event);
    })();
    // In: 10 frames of a 1 kHz tone at 8 kHz → 16 kHz frames of 320 samples carrying the same tone.
    const tone = sineWave(1_000, 8_000, 1_600, 8_000);
    for (let i = 0; i < 10; i += 1)
      transport.receive(
        encodeAudioFrame({
          sampleRate: 8_000,
          requestNumber: 0,
          sequence: i,
          samples: tone.subarray(i * 160, i * 160 + 160),
        }),
      );
    await new Promise((r) => setTimeout(r, 0));
    const audio = events.flatMap((e) => (e.type === 'audio' ? [e.samples] : []));
    expect(audio.length).toBeGreaterThanOrEqual(9);
    expect(audio.every((f) => f.length === 320)).toBe(true);
    expect(toneAmplitude(audio[5]!, 1_000, 16_000)).toBeGreaterThan(6_000);

    // Out: 16 kHz frames → 8 kHz frames; a mark flushes what the resampler held, then goes out.
    const out16 = sineWave(500, 16_000, 320 * 5, 8_000);
    for (let i = 0; i < 5; i += 1) transport.send(out16.subarray(i * 320, i * 320 + 320));
    transport.mark('m1');
    const decoded = published.map((p) =>
      isAudioFrame(p.data)
        ? { type: 'audio', n: decodeAudioFrame(p.data).samples.length }
        : sipCodecs.bridgeOut.decode(p.data),
    );
    expect(decoded.at(-1)).toEqual({ type: 'mark', name: 'm1' });
    expect(decoded.filter((d) => d.type === 'audio').length).toBeGreaterThanOrEqual(5);
    expect(decoded.every((d) => d.type !== 'audio' || (d as { n: number }).n === 160)).toBe(true);
    transport.mark('m2');
    transport.receive(sipCodecs.bridgeIn.encode({ type: 'mark', name: 'm2' }) as unknown as Uint8Array);
    await new Promise((r) => setTimeout(r, 0));
    expect(events.filter((e) => e.type === 'mark').map((e) => (e as { name: string }).name)).toEqual(['m1', 'm2']);

    transport.mark('m3');
    transport.clear();
    transport.receive(new TextEncoder().encode(sipCodecs.bridgeIn.encode({ type: 'mark', name: 'm3' })));
    transport.receive(new TextEncoder().encode('{"type":"nonsense"}'));
    expect(transport.stats.malformed).toBe(1);
    transport.receive(new TextEncoder().encode(sipCodecs.bridgeIn.encode({ type: 'stop', reason: 'remote_bye' })));
    await new Promise((r) => setTimeout(r, 0));
    expect(events.filter((e) => e.type === 'mark').length).toBe(2);
    expect(events.at(-1)).toEqual({ type: 'hangup', reason: 'sip: remote_bye' });
    expect(sipCodecs.bridgeOut.decode(published.at(-1)!.data)).toEqual({ type: 'clear' });
  });

  it('waits for the gateway to say how a transfer went: ok resolves, a failure throws, a stop during it throws', async () => {
    const published: string[] = [];
    const bus = {
      publish: (_subject: string, data: Uint8Array | string) =>
        published.push(typeof data === 'string' ? data : new TextDecoder().decode(data)),
    } as unknown as Bus;
    const transport = new BusBridgeTransport(bus, 'call2');
    const result = (message: Parameters<typeof sipCodecs.bridgeIn.encode>[0]) =>
      transport.receive(new TextEncoder().encode(sipCodecs.bridgeIn.encode(message)));

    const busy = transport.transfer('+14155550777');
    expect(sipCodecs.bridgeOut.decode(published.at(-1)!)).toEqual({ type: 'transfer', to: '+14155550777' });
    await expect(transport.transfer('+14155550778')).rejects.toThrow(/under way/);
    result({ type: 'transfer_result', ok: false, sipStatus: 486, reason: 'busy: Busy Here' });
    await expect(busy).rejects.toThrow(/busy.*486/);

    const done = transport.transfer('+14155550777');
    result({ type: 'transfer_result', ok: true, sipStatus: 200, reason: 'bridged' });
    await expect(done).resolves.toBeUndefined();

    const cut = transport.transfer('+14155550777');
    result({ type: 'stop', reason: 'remote_bye' });
    await expect(cut).rejects.toThrow(/bridge closed/);
  });
});
