/**
 * Loud noise over the agent (a door, traffic, a hiss) opens the energy gate; with Silero behind the gate it does
 * not take the floor from the agent, and real speech still does. The same call with the gate alone is interrupted
 * by the noise, which shows what the model is for.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE_SAMPLE_RATE } from '../../src/audio/format.ts';
import { resample } from '../../src/audio/resampler.ts';
import { createFliteTts } from '../../src/providers/flite/flite-tts.ts';
import { SileroModel } from '../../src/providers/silero/silero-model.ts';
import { GatedSileroVad } from '../../src/session/gated-silero-vad.ts';
import { collectAudio } from '../offline-speech/support/offline-speech-kit.ts';
import { scriptedChat, scriptedStt, toneTts } from '../support/scripted-providers.ts';
import { whiteNoise } from '../support/test-audio.ts';
import { callSpec, startCall, type RunningCall } from './call-harness.ts';

const LONG_REPLY =
  'Your appointment is on Tuesday the fourth at ten in the morning with doctor Rao. Please arrive fifteen minutes early and bring your insurance card.';

let model: SileroModel;
let question: Int16Array;
let call: RunningCall | undefined;

beforeAll(async () => {
  model = await SileroModel.load();
  const spoken = await collectAudio(
    createFliteTts().synthesize({ text: 'When is my appointment?', voiceId: 'kal16' }, new AbortController().signal),
  );
  question =
    spoken.sampleRate === ENGINE_SAMPLE_RATE
      ? spoken.samples
      : resample(spoken.samples, spoken.sampleRate, ENGINE_SAMPLE_RATE);
});
afterEach(async () => {
  await call?.close();
  call = undefined;
});
afterAll(async () => {
  await model?.close();
});

/** The caller asks, the agent starts its long reply, and a second of loud noise arrives while it speaks. */
async function noiseDuringReply(voiceActivity: GatedSileroVad | undefined): Promise<RunningCall> {
  const running = await startCall(
    callSpec({ greetingMessage: null }),
    {
      stt: scriptedStt(['when is my appointment', 'hold on']),
      tts: toneTts('tone', 25),
      llm: scriptedChat([{ text: LONG_REPLY }, { text: 'Sure.' }]),
    },
    { voiceActivity },
  );
  await running.play(question);
  await running.silence(700);
  await running.waitFor((e) => e.type === 'state' && e.state === 'speaking');
  await running.silence(300);
  await running.play(whiteNoise(1_200, 6_000));
  await running.silence(600);
  return running;
}

describe('noise while the agent speaks', () => {
  it('does not interrupt the agent when Silero sits behind the gate', async () => {
    call = await noiseDuringReply(new GatedSileroVad(model));
    const reply = await call.waitFor((e) => e.type === 'transcript' && e.speaker === 'assistant', 20_000);
    expect(reply).toMatchObject({ text: LONG_REPLY });
    expect(call.caller.clears).toBe(0);
    expect(call.events.some((e) => e.type === 'transcript' && e.interrupted)).toBe(false);
  }, 30_000);

  it('interrupts the agent when the gate decides alone', async () => {
    call = await noiseDuringReply(undefined);
    await call.waitFor((e) => e.type === 'transcript' && e.interrupted === true, 10_000);
    expect(call.caller.clears).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it('still lets real speech take the floor', async () => {
    call = await startCall(
      callSpec({ greetingMessage: null }),
      {
        stt: scriptedStt(['when is my appointment', 'wait I need to change it']),
        tts: toneTts('tone', 25),
        llm: scriptedChat([{ text: LONG_REPLY }, { text: 'Sure.' }]),
      },
      { voiceActivity: new GatedSileroVad(model) },
    );
    await call.play(question);
    await call.silence(700);
    await call.waitFor((e) => e.type === 'state' && e.state === 'speaking');
    await call.silence(300);
    await call.play(question);
    await call.silence(600);
    await call.waitFor((e) => e.type === 'transcript' && e.interrupted === true, 10_000);
    expect(call.caller.clears).toBeGreaterThanOrEqual(1);
  }, 30_000);
});
