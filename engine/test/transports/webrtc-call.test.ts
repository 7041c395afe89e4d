/**
 * Browser calls over WebRTC against the engine's real media server, with a werift peer in place of the browser
 * (the real-browser test is control-plane/test/web-call.test.ts): ICE, DTLS-SRTP and Opus both ways.
 *
 * - A whole turn: the caller's flite sentence as 48 kHz Opus, pocketsphinx hears it, the scripted LLM answers,
 *   flite speaks, the caller receives the answer as Opus with the energy of speech; the caller hangs up.
 * - Barge-in: the caller talks over a long answer; the agent stops at once and keeps only what was sent.
 * - The agent hangs up: the caller is told (`hangup`) and the socket closes cleanly.
 * - Tokens: forged, malformed and spent tokens are refused with 1008 before any peer connection exists.
 */
import { RTCPeerConnection } from 'werift';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callCodecs, subjects } from '../../src/protocol/index.ts';
import { createFliteTts } from '../../src/providers/flite/flite-tts.ts';
import { createPocketsphinxStt } from '../../src/providers/pocketsphinx/pocketsphinx-stt.ts';
import { webrtcSignallingUrl } from '../../src/roles/media-endpoint.ts';
import { describeInstalled, unavailableReason, wordOverlap } from '../offline-speech/support/offline-speech-kit.ts';
import { fabrics } from '../support/bus-fabric.ts';
import { scriptedChat, scriptedStt } from '../support/scripted-providers.ts';
import { carrierCallSpec, startMediaEngine, type MediaEngine } from './support/media-engine.ts';
import { spoken, voicedMs } from './support/speech.ts';
import { tappedStt } from './support/tapped-stt.ts';
import { connectWebRtcCaller, openSignalling } from '../fakes/webrtc-caller.ts';

const SENTENCE = 'please book me for tuesday morning';
const REPLY = 'Done. You are booked for Tuesday at ten in the morning.';
const LONG_REPLY = [
  'Your appointment is on Tuesday the fourth at ten in the morning.',
  'Please arrive fifteen minutes early to fill in the forms.',
  'Bring your insurance card and a list of the medicines you take.',
  'Parking is free in the lot behind the building on Main Street.',
].join(' ');
const reason = unavailableReason(() => createFliteTts()) ?? unavailableReason(() => createPocketsphinxStt());

describeInstalled('browser calls over WebRTC (werift caller)', reason, () => {
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

      it('hears the caller, answers aloud over Opus, and ends when the caller hangs up', async () => {
        const spec = carrierCallSpec();
        const call = await engine.dispatch(spec);
        const caller = await connectWebRtcCaller(webrtcSignallingUrl(call.mediaUrl, call.streamToken));
        try {
          await engine.waitFor(spec.callId, (e) => e.type === 'state' && e.state === 'listening');
          await caller.pause(300);
          await caller.say(await spoken(SENTENCE));
          await caller.pause(1_500);
          const reply = await engine.waitFor(
            spec.callId,
            (e) => e.type === 'transcript' && e.speaker === 'assistant',
            30_000,
          );
          const user = engine.eventsOf(spec.callId).find((e) => e.type === 'transcript' && e.speaker === 'user');
          if (user?.type !== 'transcript' || reply.type !== 'transcript') throw new Error('no transcript lines');
          expect(wordOverlap(SENTENCE, user.text), `pocketsphinx heard "${user.text}"`).toBeGreaterThanOrEqual(0.6);
          expect(reply.text).toBe(REPLY);
          // The answer arrives as it plays: keep the line open until well over a second of speech has come.
          await caller.pause(3_500);
          expect(voicedMs(caller.heard(), 48_000)).toBeGreaterThan(1_500);
          expect(caller.signals.map((s) => s.type)).toEqual(['answer']);

          await caller.hangup();
          const ended = await engine.waitFor(spec.callId, (e) => e.type === 'ended');
          expect(ended).toMatchObject({ reason: 'caller_hangup', outcome: 'completed' });
          const log = await engine.waitForLog(
            (l) => l.event === 'webrtc call ended' && l.detail.callId === spec.callId,
          );
          expect(log.detail.stats).toMatchObject({ malformed: 0, corruptPackets: 0 });
          expect((log.detail.stats as { packetsIn: number }).packetsIn).toBeGreaterThan(200);
        } finally {
          await caller.close();
        }
      }, 60_000);

      it('the agent hangs up: the caller is told and the socket closes cleanly', async () => {
        const spec = carrierCallSpec();
        const call = await engine.dispatch(spec);
        const caller = await connectWebRtcCaller(webrtcSignallingUrl(call.mediaUrl, call.streamToken));
        try {
          await engine.waitFor(spec.callId, (e) => e.type === 'state' && e.state === 'listening');
          engine.bus.publish(
            subjects.callControl(spec.callId),
            callCodecs.control.encode({ type: 'end', reason: 'test_over' }),
          );
          expect(await caller.closed).toEqual({ code: 1000, reason: expect.any(String) });
          expect(caller.signals.at(-1)).toMatchObject({ type: 'hangup' });
          const ended = await engine.waitFor(spec.callId, (e) => e.type === 'ended');
          expect(ended).toMatchObject({ reason: 'test_over' });
        } finally {
          await caller.close();
        }
      }, 30_000);

      it('counts malformed signalling and refuses an offer without audio: the call is given up as media_failed', async () => {
        const spec = carrierCallSpec();
        const call = await engine.dispatch(spec);
        const ws = new WebSocket(webrtcSignallingUrl(call.mediaUrl, call.streamToken));
        await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
        const closed = new Promise<{ code: number; reason: string }>((resolve) =>
          ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
        );
        ws.send('not json');
        ws.send(JSON.stringify({ type: 'dance' }));
        // A real offer, made by werift, with a data channel and no audio.
        const peer = new RTCPeerConnection();
        peer.createDataChannel('chat');
        await peer.setLocalDescription(await peer.createOffer());
        ws.send(JSON.stringify({ type: 'offer', sdp: peer.localDescription!.sdp }));
        expect(await closed).toEqual({ code: 1003, reason: 'offer refused' });
        await peer.close();
        const ended = await engine.waitFor(spec.callId, (e) => e.type === 'ended');
        expect(ended).toMatchObject({ reason: 'media_failed', outcome: 'failed' });
        const log = await engine.waitForLog(
          (l) => l.event === 'webrtc call failed before connecting' && l.detail.callId === spec.callId,
        );
        expect((log.detail.stats as { faults: string[] }).faults).toEqual([
          'not JSON',
          'unknown type "dance"',
          'offer refused: the offer has no audio',
        ]);
      }, 30_000);

      it('refuses forged, malformed and spent tokens before any peer connection', async () => {
        const spec = carrierCallSpec();
        const call = await engine.dispatch(spec);
        const url = webrtcSignallingUrl(call.mediaUrl, call.streamToken);
        const forged = `${call.streamToken.slice(0, -4)}AAAA`;
        expect(await openSignalling(webrtcSignallingUrl(call.mediaUrl, forged))).toEqual({
          code: 1008,
          reason: 'stream token refused: forged',
        });
        expect(await openSignalling(webrtcSignallingUrl(call.mediaUrl, 'not-a-token'))).toEqual({
          code: 1008,
          reason: 'stream token refused: malformed',
        });
        const caller = await connectWebRtcCaller(url);
        try {
          expect(await openSignalling(url)).toEqual({ code: 1008, reason: 'stream token refused: reused' });
        } finally {
          await caller.hangup();
          await caller.close();
        }
      }, 30_000);
    });
  }
});

describeInstalled(
  'barge-in over WebRTC',
  unavailableReason(() => createFliteTts()),
  () => {
    const [fabric] = fabrics();
    let engine: MediaEngine;
    const llm = scriptedChat([{ text: LONG_REPLY }, { text: 'Sure, which day suits you better?' }]);
    const stt = scriptedStt(['when is my appointment', 'wait I need to change it']);
    beforeAll(async () => {
      engine = await startMediaEngine(fabric!, { stt, tts: createFliteTts(), llm });
    });
    afterAll(async () => {
      await engine?.close();
      await fabric!.close();
    });

    it('stops talking when the caller talks over it, and keeps only what was sent', async () => {
      const spec = carrierCallSpec();
      const call = await engine.dispatch(spec);
      const caller = await connectWebRtcCaller(webrtcSignallingUrl(call.mediaUrl, call.streamToken));
      try {
        await engine.waitFor(spec.callId, (e) => e.type === 'state' && e.state === 'listening');
        await caller.say(await spoken('when is my appointment'));
        await caller.pause(2_500);
        // The long answer is playing.
        expect(voicedMs(caller.heard(), 48_000)).toBeGreaterThan(500);
        const interruption = caller.say(await spoken('wait wait I need to change the day of my appointment please'));
        const line = await engine.waitFor(
          spec.callId,
          (e) => e.type === 'transcript' && e.interrupted === true,
          15_000,
        );
        if (line.type !== 'transcript') throw new Error('unreachable');
        await interruption;
        expect(line.text.length).toBeLessThan(LONG_REPLY.length);
        expect(LONG_REPLY.startsWith(line.text.replace(/[.,]$/, ''))).toBe(true);
        await caller.hangup();
        const log = await engine.waitForLog((l) => l.event === 'webrtc call ended' && l.detail.callId === spec.callId);
        expect(log.detail.stats).toMatchObject({ clears: 1 });
      } finally {
        await caller.close();
      }
    }, 60_000);
  },
);
