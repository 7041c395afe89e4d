/** Synthetic test audio at the engine's rate (16 kHz PCM16). */
import { ENGINE_SAMPLE_RATE } from '../../src/audio/format.ts';

/**
 * `ms` of white noise with peaks of ±`amplitude`, from a fixed seed so every run hears the same noise. Loud white
 * noise (a door, traffic, a hiss on the line) is what an energy gate cannot tell from speech.
 */
export function whiteNoise(ms: number, amplitude: number, seed = 7): Int16Array {
  let state = seed >>> 0 || 1;
  const next = () => {
    // xorshift32: cheap, seedable, and plenty random for noise.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x1_0000_0000;
  };
  return Int16Array.from({ length: Math.round((ms * ENGINE_SAMPLE_RATE) / 1000) }, () =>
    Math.round((next() * 2 - 1) * amplitude),
  );
}
