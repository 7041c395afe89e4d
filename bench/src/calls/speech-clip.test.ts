import { describe, expect, it } from 'vitest';
import { trimToSpeech } from './speech-clip.ts';

/** `frames` 20 ms frames at 8 kHz with this peak each. */
function signal(peaks: number[]): Int16Array {
  const out = new Int16Array(peaks.length * 160);
  peaks.forEach((peak, f) => {
    out[f * 160 + 80] = peak;
  });
  return out;
}

describe('trimToSpeech', () => {
  it('cuts from the first voiced frame to the end of the last, and finds the longest pause between', () => {
    const clip = trimToSpeech(signal([10, 20, 3_000, 500, 500, 2_000, 0, 4_000, 30, 10]));
    expect(clip.samples.length).toBe(6 * 160);
    expect(clip.samples[80]).toBe(3_000);
    expect(clip.longestPauseMs).toBe(40);
    expect(clip.sampleRate).toBe(8_000);
  });

  it('refuses a recording with no voiced frame', () => {
    expect(() => trimToSpeech(signal([10, 900, 10]))).toThrow(/no voiced frame/);
  });
});
