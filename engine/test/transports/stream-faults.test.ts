/**
 * What a carrier stream can throw at the engine, through the real media server: a socket lost mid-call (the call
 * ends cleanly as `media_dropped`, its `ended` event published), malformed and unknown messages (counted, ignored,
 * the call goes on), two seconds of audio in one burst (absorbed whole: the session hears all of it and answers),
 * and DTMF (it reaches the session).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaCarrier } from '../../src/transports/carrier-ws/carrier-protocol.ts';
import { SimStream, type SimFormat } from '../fakes/carrier-sim/index.ts';
import { fabrics } from '../support/bus-fabric.ts';
import { scriptedChat, scriptedStt, toneTts } from '../support/scripted-providers.ts';
import { createFliteTts } from '../../src/providers/flite/flite-tts.ts';
import { unavailableReason } from '../offline-speech/support/offline-speech-kit.ts';
import { carrierCallSpec, startMediaEngine, type MediaEngine } from './support/media-engine.ts';
import { similarity, spoken, throughCarrier } from './support/speech.ts';
import { tappedStt } from './support/tapped-stt.ts';

const CASES: { carrier: MediaCarrier; format: SimFormat }[] = [
  { carrier: 'carrier-b', format: { encoding: 'mulaw', sampleRate: 8000 } },
  { carrier: 'carrier-a', format: { encoding: 'l16', sampleRate: 8000 } },
  { carrier: 'carrier-c', format: { encoding: 'l16', sampleRate: 8000 } },
];
const fliteMissing = unavailableReason(() => createFliteTts());

/** Messages no carrier sends: each must be counted and ignored. */
const GARBAGE: (string | Buffer)[] = [
  'not json at all',
  '[1, 2, 3]',
  '{"event": 42}',
  '{"no": "event"}',
  '{"event": "media"}',
  '{"event": "media", "media": {"payload": "@@not base64@@"}, "streamSid": "x", "stream_sid": "x", "streamId": "x"}',
  '{"event": "dtmf", "dtmf": {"digit": "Z"}}',
  '{"event": "mark", "mark": {"name": "never-sent"}, "name": "never-sent"}',
  '{"event": "a-mystery-event"}',
  Buffer.from([0xde, 0xad, 0xbe, 0xef]),
];

for (const fabric of fabrics()) {
  describe(`carrier stream faults on the ${fabric.name}`, () => {
    let engine: MediaEngine;
    const stt = tappedStt(scriptedStt(Array.from({ length: 20 }, (_, i) => `sentence ${i}`)));
    beforeAll(async () => {
      engine = await startMediaEngine(fabric, {
        stt: stt.provider,
        tts: toneTts('tone', 15),
        llm: scriptedChat([{ text: 'Got it, thank you.' }]),
      });
    });
    afterAll(async () => {
      await engine?.close();
      await fabric.close();
    });

    for (const { carrier, format } of CASES) {
      it(`${carrier}: a socket lost mid-call ends the call as media_dropped and publishes its end`, async () => {
        const spec = carrierCallSpec({
          greetingMessage: 'Hello, this is Maya from the clinic, calling about your appointment.',
        });
        const call = await engine.dispatch(spec);
        const stream = await SimStream.connect({ carrier, url: call.streamUrl(carrier), format });
        await stream.until(() => stream.record.mediaMessages > 10, 'greeting audio');
        stream.drop();
        const ended = await engine.waitFor(spec.callId, (e) => e.type === 'ended');
        expect(ended).toMatchObject({ reason: 'media_dropped', outcome: 'completed' });
        await expect.poll(() => engine.role.activeCalls).toBe(0);
        const log = await engine.waitForLog((l) => l.event === 'media stream ended' && l.detail.callId === spec.callId);
        expect(log.detail.reason).toBe('media_dropped');
      });

      it(`${carrier}: counts and ignores malformed and unknown messages, and the call goes on`, async () => {
        const spec = carrierCallSpec();
        const call = await engine.dispatch(spec);
        const stream = await SimStream.connect({ carrier, url: call.streamUrl(carrier), format });
        await engine.waitFor(spec.callId, (e) => e.type === 'state' && e.state === 'listening');
        for (const message of GARBAGE) stream.sendRaw(message);
        // A second start, and audio far over the size bound of one message (12 s of it).
        stream.sendRaw(
          JSON.stringify({
            event: 'start',
            start: {
              streamSid: 'MZ2',
              streamId: 'x',
              stream_sid: 'x',
              mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000 },
            },
          }),
        );
        stream.sendRaw(
          JSON.stringify({
            event: 'media',
            streamSid: 'x',
            streamId: 'x',
            stream_sid: 'x',
            media: { payload: Buffer.alloc(8000 * 2 * 12).toString('base64') },
          }),
        );

        await stream.say(
          new Int16Array(16_000).map((_, i) => Math.round(8000 * Math.sin(i / 3))),
          16_000,
        );
        await stream.pause(900);
        await engine.waitFor(spec.callId, (e) => e.type === 'transcript' && e.speaker === 'assistant', 15_000);
        await stream.until(() => stream.marks().length >= 1, 'the answer played');
        expect(stream.isOpen).toBe(true);
        await stream.hangup();

        const log = await engine.waitForLog((l) => l.event === 'media stream ended' && l.detail.callId === spec.callId);
        const stats = log.detail.stats as { malformed: number; unknown: number; faults: string[] };
        expect(stats.malformed + stats.unknown).toBeGreaterThanOrEqual(GARBAGE.length + 2);
        expect(stats.unknown).toBeGreaterThanOrEqual(1);
        expect(stats.faults.length).toBeGreaterThan(0);
        expect(log.detail.reason).toBe('caller_hangup');
      });

      it(`${carrier}: passes DTMF to the session`, async () => {
        const spec = carrierCallSpec();
        const call = await engine.dispatch(spec);
        const stream = await SimStream.connect({ carrier, url: call.streamUrl(carrier), format });
        await engine.waitFor(spec.callId, (e) => e.type === 'state' && e.state === 'listening');
        stream.press('5');
        stream.press('#');
        await engine.waitFor(spec.callId, (e) => e.type === 'dtmf' && e.digit === '#');
        expect(
          engine
            .eventsOf(spec.callId)
            .filter((e) => e.type === 'dtmf')
            .map((e) => (e as { digit: string }).digit),
        ).toEqual(['5', '#']);
        await stream.hangup();
      });

      it.skipIf(fliteMissing !== undefined)(
        `${carrier}: absorbs two seconds of speech sent at once, losing none of it`,
        async () => {
          const spec = carrierCallSpec();
          const call = await engine.dispatch(spec);
          const stream = await SimStream.connect({ carrier, url: call.streamUrl(carrier), format });
          await engine.waitFor(spec.callId, (e) => e.type === 'state' && e.state === 'listening');
          await stream.pause(200);
          stt.reset();
          const sentence = await spoken('please book me for tuesday morning at ten');
          expect(sentence.length).toBeGreaterThan(32_000);
          stream.burst(sentence, 16_000);
          await stream.pause(1_500);
          const line = await engine.waitFor(
            spec.callId,
            (e) => e.type === 'transcript' && e.speaker === 'user',
            15_000,
          );
          expect(line).toMatchObject({ text: expect.stringMatching(/^sentence \d+$/) });
          await engine.waitFor(spec.callId, (e) => e.type === 'transcript' && e.speaker === 'assistant', 15_000);
          expect(similarity(throughCarrier(sentence, format), stt.heard())).toBeGreaterThan(0.9);
          await stream.hangup();
          const log = await engine.waitForLog(
            (l) => l.event === 'media stream ended' && l.detail.callId === spec.callId,
          );
          expect(log.detail.stats).toMatchObject({
            droppedFrames: 0,
            malformed: 0,
            duplicateChunks: 0,
            concealedFrames: 0,
          });
        },
      );
    }
  });
}
