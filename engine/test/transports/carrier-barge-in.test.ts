/**
 * Barge-in over each carrier's stream and the websocket call type (carrier-b's dialect): the caller talks over a
 * long answer; the engine pauses at once, tells the carrier to drop what it buffered (Twilio `clear`, Plivo
 * `clearAudio`, Exotel `clear`), and when the words interrupt, the conversation keeps only what the carrier played:
 * every clause whose mark came back before the clear, and no clause the carrier never played. A backchannel over
 * the answer pauses it as briefly, then the answer goes on and the carrier plays all of it. Real speech both ways
 * (flite); the recogniser is scripted and sends no interim words, as words are not what is tested here.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createFliteTts } from '../../src/providers/flite/flite-tts.ts';
import type { TtsProvider } from '../../src/providers/tts-provider.ts';
import type { MediaCarrier } from '../../src/transports/carrier-ws/carrier-protocol.ts';
import { SimStream, type SimFormat } from '../fakes/carrier-sim/index.ts';
import { describeInstalled, unavailableReason } from '../offline-speech/support/offline-speech-kit.ts';
import { fabrics } from '../support/bus-fabric.ts';
import { scriptedChat, scriptedStt } from '../support/scripted-providers.ts';
import { carrierCallSpec, startMediaEngine, type MediaEngine } from './support/media-engine.ts';
import { spoken } from './support/speech.ts';

const CLAUSES = [
  'Your appointment is on Tuesday the fourth at ten in the morning.',
  'Please arrive fifteen minutes early to fill in the forms.',
  'Bring your insurance card and a list of the medicines you take.',
  'Parking is free in the lot behind the building on Main Street.',
  'If you need to cancel, please call us a day ahead of time.',
];
const LONG_REPLY = CLAUSES.join(' ');
const AFTER = 'Sure, which day suits you better?';
const reason = unavailableReason(() => createFliteTts());

const CASES: { carrier: MediaCarrier; format: SimFormat; clearEvent: string; label?: string }[] = [
  { carrier: 'carrier-b', format: { encoding: 'mulaw', sampleRate: 8000 }, clearEvent: 'clear' },
  { carrier: 'carrier-a', format: { encoding: 'mulaw', sampleRate: 8000 }, clearEvent: 'clearAudio' },
  { carrier: 'carrier-c', format: { encoding: 'l16', sampleRate: 8000 }, clearEvent: 'clear' },
  // The websocket call type: the client streams the call in carrier-b's dialect (WEBSOCKET_CALL_DIALECT).
  {
    carrier: 'carrier-b',
    format: { encoding: 'mulaw', sampleRate: 8000 },
    clearEvent: 'clear',
    label: 'websocket call',
  },
];
/** One backchannel per case, each said over the answer. */
const BACKCHANNELS = ['uh-huh', 'okay', 'yeah', 'mm-hmm'];
/** How long a backchannel may hold the agent, ms of the caller's time after its end: the endpointing pause
 * (600 ms) before the recogniser's word, the resume window (1 s) at most, and room for a loaded machine. */
const BRIEF_PAUSE_MS = 2_500;

/**
 * flite, recording the text of each synthesis in the order they start (clause order), and how much audio it made:
 * `seconds[i]` for `texts[i]`.
 */
function recordingTts(): TtsProvider & { texts: string[]; seconds: number[] } {
  const flite = createFliteTts();
  const texts: string[] = [];
  const seconds: number[] = [];
  return {
    name: flite.name,
    texts,
    seconds,
    async *synthesize(request, signal) {
      const index = texts.push(request.text) - 1;
      seconds[index] = 0;
      for await (const chunk of flite.synthesize(request, signal)) {
        seconds[index] += chunk.samples.length / chunk.sampleRate;
        yield chunk;
      }
    },
    voices: () => flite.voices(),
  };
}

describeInstalled('barge-in over carrier media streams', reason, () => {
  const [fabric] = fabrics();
  let engine: MediaEngine;
  // One long answer and one short one per call.
  // One long answer and one short one per barge-in call, then one long answer per backchannel call.
  const llm = scriptedChat([
    ...CASES.flatMap(() => [{ text: LONG_REPLY }, { text: AFTER }]),
    ...CASES.map(() => ({ text: LONG_REPLY })),
  ]);
  const tts = recordingTts();
  const stt = scriptedStt([
    ...CASES.flatMap(() => ['when is my appointment', 'wait I need to change it']),
    ...CASES.flatMap((_, i) => ['when is my appointment', BACKCHANNELS[i]!]),
  ]);
  beforeAll(async () => {
    engine = await startMediaEngine(fabric!, { stt, tts, llm });
  });
  afterAll(async () => {
    await engine?.close();
    await fabric!.close();
  });

  for (const { carrier, format, clearEvent, label } of CASES) {
    it(`${label ?? carrier}: sends ${clearEvent} and keeps only what the carrier played`, async () => {
      const spec = carrierCallSpec();
      const call = await engine.dispatch(spec);
      const stream = await SimStream.connect({ carrier, url: call.streamUrl(carrier), format });
      await engine.waitFor(spec.callId, (e) => e.type === 'state' && e.state === 'listening');
      const requestsBefore = llm.requests.length;
      const textsBefore = tts.texts.length;

      await stream.say(await spoken('when is my appointment'), 16_000);
      await stream.pause(1_000);
      // The answer is playing: its first clause has played and been confirmed, and more is on its way.
      await stream.until(() => stream.marks().length >= 1, 'the first clause confirmed', 20_000);
      const heardBeforeBargeIn = stream.receivedAudio().length;

      void stream.say(await spoken('wait wait I need to change the day of my appointment please'), 16_000);
      const line = await engine.waitFor(spec.callId, (e) => e.type === 'transcript' && e.interrupted === true, 15_000);
      await stream.until(() => stream.record.clears.length >= 1, clearEvent);
      if (line.type !== 'transcript') throw new Error('unreachable');

      const clauseTexts = tts.texts.slice(textsBefore);
      const clearedAt = stream.record.clears[0]!;
      const playedBeforeClear = stream.record.marks
        .filter((m) => m.outcome === 'played' && m.atMs <= clearedAt)
        .map((m) => m.name);
      const confirmed = playedBeforeClear.map((name) => clauseTexts[Number(name.split('c')[1])]!);
      // Every clause the carrier confirmed is in what the conversation keeps, in order, and nothing beyond the
      // clause that was playing when the caller cut in.
      expect(playedBeforeClear.length).toBeGreaterThanOrEqual(1);
      expect(line.text.startsWith(confirmed.join(' '))).toBe(true);
      expect(LONG_REPLY.startsWith(line.text.replace(/[.,]$/, ''))).toBe(true);
      expect(line.text.length).toBeLessThan(LONG_REPLY.length);
      const keptClauses = CLAUSES.filter((_, i) => line.text.length > CLAUSES.slice(0, i).join(' ').length);
      expect(keptClauses.length).toBeLessThanOrEqual(playedBeforeClear.length + 1);
      // The carrier dropped what it still held: the marks pending at the clear are not played ones.
      const cleared = stream.marks('cleared');
      expect(cleared.every((name) => !playedBeforeClear.includes(name))).toBe(true);
      expect(stream.receivedAudio().length).toBeGreaterThan(heardBeforeBargeIn);
      expect(stream.violations).toEqual([]);

      // The model's next turn sees what the caller heard, then what the caller said.
      await engine.waitFor(
        spec.callId,
        (e) => e.type === 'transcript' && e.speaker === 'assistant' && e.text === AFTER,
        20_000,
      );
      const next = llm.requests[requestsBefore + 1]!.messages;
      expect(next.at(-2)).toEqual({ role: 'assistant', content: line.text });
      expect(next.at(-1)).toEqual({ role: 'user', content: 'wait I need to change it' });

      await stream.hangup();
      const ended = await engine.waitForLog((l) => l.event === 'media stream ended' && l.detail.callId === spec.callId);
      expect(ended.detail.stats).toMatchObject({ clears: 1, malformed: 0, unknown: 0 });
      expect((ended.detail.stats as { marksCleared: number }).marksCleared).toBeGreaterThanOrEqual(0);
    }, 90_000);
  }
  CASES.forEach(({ carrier, format, label }, i) => {
    const word = BACKCHANNELS[i]!;
    it(`${label ?? carrier}: "${word}" over the answer pauses it briefly, and the carrier then plays all of it`, async () => {
      const spec = carrierCallSpec();
      const call = await engine.dispatch(spec);
      const stream = await SimStream.connect({ carrier, url: call.streamUrl(carrier), format });
      await engine.waitFor(spec.callId, (e) => e.type === 'state' && e.state === 'listening');
      const textsBefore = tts.texts.length;

      await stream.say(await spoken('when is my appointment'), 16_000);
      await stream.pause(1_000);
      await stream.until(() => stream.marks().length >= 1, 'the first clause confirmed', 20_000);

      await stream.say(await spoken(word), 16_000);
      await stream.until(() => stream.record.clears.length >= 1, 'the pause (a clear)', 5_000);
      const playedAtPause = stream.record.played.length;
      await stream.until(
        () => stream.record.played.length > playedAtPause,
        'the answer going on after the backchannel',
        BRIEF_PAUSE_MS,
      );

      const line = await engine.waitFor(
        spec.callId,
        (e) => e.type === 'transcript' && e.speaker === 'assistant',
        40_000,
      );
      if (line.type !== 'transcript') throw new Error('unreachable');
      expect(line.text).toBe(LONG_REPLY);
      expect(line.interrupted).not.toBe(true);
      expect(engine.eventsOf(spec.callId).some((e) => e.type === 'transcript' && e.interrupted)).toBe(false);
      // Every clause was synthesised once, and the carrier played at least all of their audio: what the clear
      // dropped was said again (the pause replays what the carrier may not have played), so nothing is missing.
      // This call's clauses (a call of an earlier test may still be synthesising its short answer meanwhile).
      const mine = tts.texts
        .map((text, at) => ({ text, at }))
        .filter(({ text, at }) => at >= textsBefore && CLAUSES.includes(text))
        .slice(0, CLAUSES.length);
      expect(mine.map((c) => c.text)).toEqual(CLAUSES);
      await stream.until(() => stream.marks().includes(`t1c${CLAUSES.length - 1}`), 'the last clause played', 20_000);
      const answerSeconds = mine.reduce((sum, { at }) => sum + tts.seconds[at]!, 0);
      const clauses = mine.length;
      const slack = clauses * 0.02;
      expect(stream.playedAudio().length / format.sampleRate).toBeGreaterThanOrEqual(answerSeconds - slack);
      expect(stream.violations).toEqual([]);
      await stream.hangup();
    }, 90_000);
  });
});
