/**
 * Test tones and their measurement: what tests (ours and those of transports, sessions and the bench) use to check
 * that audio came through a pipeline at the right pitch and level, without a human listening.
 */

/**
 * A sine tone as PCM16.
 * @param frequency Hz
 * @param sampleRate Hz
 * @param length samples
 * @param amplitude peak, in PCM16 units (default 10 000, ~−10 dBFS, clear of clipping after any filter's ripple)
 * @param startSample index of the first sample in a longer tone, so that consecutive pieces join seamlessly
 */
export function sineWave(
  frequency: number,
  sampleRate: number,
  length: number,
  amplitude = 10_000,
  startSample = 0,
): Int16Array {
  const out = new Int16Array(length);
  const step = (2 * Math.PI * frequency) / sampleRate;
  for (let i = 0; i < length; i++) out[i] = Math.round(amplitude * Math.sin(step * (startSample + i)));
  return out;
}

/**
 * The peak amplitude of the `frequency` component of `samples`, by the Goertzel algorithm with a Hann window (so a
 * tone that does not fit a whole number of cycles in the block does not leak into its neighbours).
 * @returns PCM16 units: a clean sine of amplitude A measures ≈ A.
 */
export function toneAmplitude(samples: ArrayLike<number>, frequency: number, sampleRate: number): number {
  const n = samples.length;
  if (n === 0) return 0;
  const omega = (2 * Math.PI * frequency) / sampleRate;
  const coefficient = 2 * Math.cos(omega);
  let previous = 0;
  let beforePrevious = 0;
  let windowSum = 0;
  for (let i = 0; i < n; i++) {
    const window = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n);
    windowSum += window;
    const current = samples[i]! * window + coefficient * previous - beforePrevious;
    beforePrevious = previous;
    previous = current;
  }
  const real = previous - beforePrevious * Math.cos(omega);
  const imaginary = beforePrevious * Math.sin(omega);
  return (2 * Math.hypot(real, imaginary)) / windowSum;
}

/** Root mean square of `samples`, in PCM16 units (a sine of amplitude A has A / √2). */
export function rms(samples: ArrayLike<number>): number {
  if (samples.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i]! * samples[i]!;
  return Math.sqrt(sum / samples.length);
}

/** The ratio a / b in decibels (20 log10): amplitudes, not powers. */
export function decibels(a: number, b: number): number {
  return 20 * Math.log10(a / b);
}
