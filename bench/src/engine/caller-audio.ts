/**
 * What the simulated callers send: 20 ms frames of 16 kHz PCM16, made once and shared by every call (nothing
 * downstream writes into a frame it was given). Speech is a voice-like signal at about −12 dBFS; between words
 * the line carries faint noise (about −65 dBFS), as a real line does, never digital silence.
 */
import { ENGINE_FRAME_SAMPLES, ENGINE_SAMPLE_RATE, sineWave } from '@parley/engine/audio';

/** Distinct frames of each kind, cycled: 1 s, so no one frame is hot in the cache. */
const DISTINCT_FRAMES = 50;
/** Peak of the line noise, PCM16 units (RMS ≈ 17, about −65 dBFS). */
const NOISE_PEAK = 30;

export interface CallerAudio {
  speech(index: number): Int16Array;
  noise(index: number): Int16Array;
}

/** A linear congruential generator: the same frames on every run. */
function noiseSource(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

export function callerAudio(): CallerAudio {
  const length = DISTINCT_FRAMES * ENGINE_FRAME_SAMPLES;
  const partials = [
    sineWave(150, ENGINE_SAMPLE_RATE, length, 4_000),
    sineWave(450, ENGINE_SAMPLE_RATE, length, 3_000),
    sineWave(2_300, ENGINE_SAMPLE_RATE, length, 1_200),
  ];
  const random = noiseSource(12_345);
  const speech = Int16Array.from(
    { length },
    (_, i) => partials[0]![i]! + partials[1]![i]! + partials[2]![i]! + Math.round((random() - 0.5) * 1_000),
  );
  const noise = Int16Array.from({ length }, () => Math.round((random() * 2 - 1) * NOISE_PEAK));
  const cut = (signal: Int16Array) =>
    Array.from({ length: DISTINCT_FRAMES }, (_, f) =>
      signal.slice(f * ENGINE_FRAME_SAMPLES, (f + 1) * ENGINE_FRAME_SAMPLES),
    );
  const speechFrames = cut(speech);
  const noiseFrames = cut(noise);
  return {
    speech: (index) => speechFrames[index % DISTINCT_FRAMES]!,
    noise: (index) => noiseFrames[index % DISTINCT_FRAMES]!,
  };
}
