/**
 * Silero v5 behind the energy gate, with the real model and real speech: loud noise opens the gate but is not
 * speech; flite's voice is; confirmed speech costs only occasional model runs; a broken model leaves the gate on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE_FRAME_SAMPLES, ENGINE_SAMPLE_RATE } from '../../src/audio/format.ts';
import { resample } from '../../src/audio/resampler.ts';
import { createFliteTts } from '../../src/providers/flite/flite-tts.ts';
import { SileroModel, SILERO_WINDOW_SAMPLES } from '../../src/providers/silero/silero-model.ts';
import { EnergyVad } from '../../src/session/energy-vad.ts';
import { GatedSileroVad, SEGMENT_GAP_MS } from '../../src/session/gated-silero-vad.ts';
import { collectAudio, frames } from '../offline-speech/support/offline-speech-kit.ts';
import { whiteNoise } from '../support/test-audio.ts';

let model: SileroModel;
let speech: Int16Array;

beforeAll(async () => {
  model = await SileroModel.load();
  const spoken = await collectAudio(
    createFliteTts().synthesize(
      { text: 'Hello, I would like to book a table for two people tonight, please.', voiceId: 'kal16' },
      new AbortController().signal,
    ),
  );
  speech =
    spoken.sampleRate === ENGINE_SAMPLE_RATE
      ? spoken.samples
      : resample(spoken.samples, spoken.sampleRate, ENGINE_SAMPLE_RATE);
});
afterAll(async () => {
  await model?.close();
});

/** Feeds `audio` frame by frame, letting each window's verdict land before the next frame, as in a live call. */
async function classifyAll(vad: GatedSileroVad | EnergyVad, audio: Int16Array): Promise<boolean[]> {
  const decisions: boolean[] = [];
  for (const frame of frames(audio, ENGINE_FRAME_SAMPLES)) {
    decisions.push(vad.classify(frame).speech);
    if (vad instanceof GatedSileroVad) await vad.settled();
  }
  return decisions;
}

const silence = (ms: number) => new Int16Array((ms * ENGINE_SAMPLE_RATE) / 1000);
const share = (decisions: boolean[]) => decisions.filter(Boolean).length / decisions.length;

describe('the model', () => {
  it('gives speech a high probability and white noise a low one', async () => {
    const stream = model.stream();
    const probabilities = async (audio: Int16Array) => {
      const out: number[] = [];
      for (let i = 0; i + SILERO_WINDOW_SAMPLES <= audio.length; i += SILERO_WINDOW_SAMPLES) {
        out.push(
          await stream.probability(Float32Array.from(audio.subarray(i, i + SILERO_WINDOW_SAMPLES), (s) => s / 32768)),
        );
      }
      return out;
    };
    const voiced = await probabilities(speech);
    stream.reset();
    const noisy = await probabilities(whiteNoise(1_000, 6_000));
    expect(Math.max(...voiced)).toBeGreaterThan(0.9);
    expect(voiced.filter((p) => p >= 0.5).length / voiced.length).toBeGreaterThan(0.5);
    expect(Math.max(...noisy)).toBeLessThan(0.35);
  });

  it('refuses a window of the wrong size, and a missing model file by name', async () => {
    await expect(model.stream().probability(new Float32Array(320))).rejects.toThrow(/512 samples/);
    await expect(SileroModel.load('/nonexistent/silero.onnx')).rejects.toThrow(/\/nonexistent\/silero\.onnx/);
  });
});

describe('the gated detector', () => {
  it('does not take loud noise for speech, which the gate alone does', async () => {
    const noise = whiteNoise(1_000, 6_000);
    const gateAlone = await classifyAll(new EnergyVad(), noise);
    const gated = await classifyAll(new GatedSileroVad(model), noise);
    expect(share(gateAlone)).toBeGreaterThan(0.9);
    expect(share(gated)).toBe(0);
  });

  it('hears speech, confirming its onset within two windows', async () => {
    const vad = new GatedSileroVad(model);
    const decisions = await classifyAll(vad, concat(silence(500), speech, silence(500)));
    const gateDecisions = await classifyAll(new EnergyVad(), concat(silence(500), speech, silence(500)));
    const firstGate = gateDecisions.indexOf(true);
    const firstSpeech = decisions.indexOf(true);
    expect(firstSpeech).toBeGreaterThanOrEqual(firstGate);
    expect(firstSpeech - firstGate).toBeLessThanOrEqual(4); // 2 windows of 32 ms = 3.2 frames of 20 ms
    // Nearly every frame the gate let through counts as speech once confirmed.
    const agreed = decisions.filter((d, i) => d && gateDecisions[i]).length;
    expect(agreed / gateDecisions.filter(Boolean).length).toBeGreaterThan(0.85);
    expect(decisions.slice(-20).some(Boolean)).toBe(false);
  });

  it('runs the model on a fraction of a continuous talker’s windows', async () => {
    const vad = new GatedSileroVad(model);
    const talk = concat(speech, speech, speech, speech);
    await classifyAll(vad, talk);
    const windowsOpen = (vad.statistics.gateOpenFrames * ENGINE_FRAME_SAMPLES) / SILERO_WINDOW_SAMPLES;
    expect(vad.statistics.windowsEvaluated).toBeGreaterThan(0);
    expect(vad.statistics.windowsEvaluated / windowsOpen).toBeLessThan(0.5);
  });

  it('starts every stretch after a long pause unconfirmed, so noise after speech is judged afresh', async () => {
    const vad = new GatedSileroVad(model);
    const decisions = await classifyAll(vad, concat(speech, silence(SEGMENT_GAP_MS + 100), whiteNoise(800, 6_000)));
    expect(decisions.slice(-40).some(Boolean)).toBe(false);
  });

  it('falls back to the gate alone when the model fails, and says so', async () => {
    const broken = await SileroModel.load();
    await broken.close();
    const errors: unknown[] = [];
    const vad = new GatedSileroVad(broken, (error) => errors.push(error));
    const decisions = await classifyAll(vad, concat(silence(200), whiteNoise(600, 6_000)));
    expect(errors).toHaveLength(1);
    expect(decisions.slice(-10).every(Boolean)).toBe(true);
  });
});

function concat(...parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
