/**
 * A whole turn over each carrier's media stream, through the engine's real media server, with real audio and no
 * network: the simulated carrier streams a sentence spoken by flite in the carrier's encoding, pocketsphinx
 * transcribes it, a scripted LLM answers, flite speaks the answer, the carrier receives it in its own encoding and
 * plays it out in real time, echoing the mark after each clause; the call's transcript holds both turns.
 *
 * pocketsphinx's only model (en-us) is wideband: on telephone-band audio (8 kHz carriers) it hears little that is
 * right, however clean the audio. So what the session heard is checked two ways: the recogniser's words where the
 * stream is wideband (carrier-a at 16 kHz), and everywhere the audio itself — it must match the caller's sentence as
 * that carrier's codec and rate leave it, sample for sample (correlation ≥ 0.9).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWav } from '../../src/audio/wav.ts';
import { createFliteTts } from '../../src/providers/flite/flite-tts.ts';
import { createPocketsphinxStt } from '../../src/providers/pocketsphinx/pocketsphinx-stt.ts';
import type { MediaCarrier } from '../../src/transports/carrier-ws/carrier-protocol.ts';
import { SimStream, type SimFormat } from '../fakes/carrier-sim/index.ts';
import { describeInstalled, unavailableReason, wordOverlap } from '../offline-speech/support/offline-speech-kit.ts';
import { fabrics } from '../support/bus-fabric.ts';
import { scriptedChat } from '../support/scripted-providers.ts';
import { carrierCallSpec, startMediaEngine, type MediaEngine } from './support/media-engine.ts';
import { recognise, similarity, spoken, throughCarrier, voicedMs } from './support/speech.ts';
import { tappedStt } from './support/tapped-stt.ts';

const SENTENCE = 'please book me for tuesday morning';
const REPLY = 'Done. You are booked for Tuesday at ten in the morning.';
const reason = unavailableReason(() => createFliteTts()) ?? unavailableReason(() => createPocketsphinxStt());

/** Each carrier in one of its formats: Twilio's μ-law, Plivo's L16 at 16 kHz, Exotel's L16 at 8 kHz. */
const CASES: { carrier: MediaCarrier; format: SimFormat }[] = [
  { carrier: 'carrier-b', format: { encoding: 'mulaw', sampleRate: 8000 } },
  { carrier: 'carrier-a', format: { encoding: 'l16', sampleRate: 16000 } },
  { carrier: 'carrier-c', format: { encoding: 'l16', sampleRate: 8000 } },
];

describeInstalled('a call over carrier media streams with real speech', reason, () => {
  for (const fabric of fabrics()) {
    describe(`on the ${fabric.name}`, () => {
      let engine: MediaEngine;
      const llm = scriptedChat([{ text: REPLY }]);
      const stt = tappedStt(createPocketsphinxStt());
      beforeAll(async () => {
        engine = await startMediaEngine(fabric, { stt: stt.provider, tts: createFliteTts(), llm });
      });
      afterAll(async () => {
        await engine?.close();
        await fabric.close();
      });

      for (const { carrier, format } of CASES) {
        it(`${carrier} (${format.encoding} ${format.sampleRate} Hz): hears the caller, answers aloud, and the carrier plays and confirms it`, async () => {
          const spec = carrierCallSpec();
          stt.reset();
          const call = await engine.dispatch(spec);
          const stream = await SimStream.connect({
            carrier,
            url: call.streamUrl(carrier),
            format,
            parameters: { lead: 'L-42' },
          });
          await engine.waitFor(spec.callId, (e) => e.type === 'state' && e.state === 'listening');

          const sentence = await spoken(SENTENCE);
          await stream.pause(300);
          // The caller's sentence as a WAV file, streamed in the carrier's encoding at a 20 ms cadence.
          await stream.sayWav(encodeWav({ samples: sentence, sampleRate: 16_000 }));
          await stream.pause(1_500);

          const reply = await engine.waitFor(
            spec.callId,
            (e) => e.type === 'transcript' && e.speaker === 'assistant',
            30_000,
          );
          // Both clauses played out at real time and confirmed by the carrier's echo.
          await stream.until(() => stream.marks().length >= 2, 'echo of both clause marks', 15_000);

          const user = engine.eventsOf(spec.callId).find((e) => e.type === 'transcript' && e.speaker === 'user');
          if (user?.type !== 'transcript' || reply.type !== 'transcript') throw new Error('no transcript lines');
          expect(similarity(throughCarrier(sentence, format), stt.heard())).toBeGreaterThan(0.9);
          expect(user.text.length).toBeGreaterThan(0);
          if (format.sampleRate === 16_000)
            expect(wordOverlap(SENTENCE, user.text), `pocketsphinx heard "${user.text}"`).toBeGreaterThanOrEqual(0.6);
          expect(reply.text).toBe(REPLY);
          expect(llm.requests.at(-1)!.messages.at(-1)).toEqual({ role: 'user', content: user.text });

          expect(stream.marks()).toEqual(['t1c0', 't1c1']);
          expect(stream.violations).toEqual([]);
          expect(stream.record.clears).toEqual([]);
          // The carrier received the agent's voice in its own format: well over a second of speech.
          expect(voicedMs(stream.receivedAudio(), format.sampleRate)).toBeGreaterThan(1_500);
          expect(stream.playedAudio().length).toBe(stream.receivedAudio().length);
          if (format.sampleRate === 16_000) {
            const heard = await recognise(stream.playedAudio());
            expect(wordOverlap(REPLY, heard), `the carrier played "${heard}"`).toBeGreaterThanOrEqual(0.5);
          }

          await stream.hangup();
          const ended = await engine.waitFor(spec.callId, (e) => e.type === 'ended');
          expect(ended).toMatchObject({ reason: 'caller_hangup', outcome: 'completed' });
          const started = engine.logs.find(
            (l) => l.event === 'media stream started' && l.detail.callId === spec.callId,
          );
          expect(started?.detail).toMatchObject({
            carrier,
            format: { encoding: format.encoding, sampleRate: format.sampleRate },
          });
        }, 60_000);
      }
    });
  }
});
