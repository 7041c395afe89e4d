import { describe, expect, it } from 'vitest';
import { MAX_PHASES, TELEPHONE_BAND_HZ, polyphaseFilter } from './polyphase-filter.ts';
import { Resampler, resample } from './resampler.ts';
import { decibels, rms, sineWave, toneAmplitude } from './tone.ts';

/** The rate pairs the engine uses: carriers (8k), browsers and TTS (24k, 48k), espeak-ng (22.05k). */
const PAIRS: readonly [number, number][] = [
  [8000, 16000],
  [16000, 8000],
  [24000, 16000],
  [48000, 16000],
  [16000, 48000],
  [22050, 16000],
  [16000, 24000],
];

const AMPLITUDE = 10_000;
/** One second: long enough that the measurement window dwarfs the filter's edges. */
const SECONDS = 1;

/** The steady middle of a signal, away from the filter's start-up and tail. */
function middle(samples: Int16Array, rate: number): Int16Array {
  const margin = Math.round(rate * 0.1);
  return samples.subarray(margin, samples.length - margin);
}

describe('Resampler', () => {
  for (const [inRate, outRate] of PAIRS) {
    const lowNyquist = Math.min(inRate, outRate) / 2;

    it(`${inRate} → ${outRate} Hz: passband tones keep their frequency and level within 0.5 dB`, () => {
      for (const share of [0.05, 0.25, 0.5, 0.8]) {
        const frequency = Math.round(lowNyquist * share);
        const out = resample(sineWave(frequency, inRate, inRate * SECONDS, AMPLITUDE), inRate, outRate);
        const steady = middle(out, outRate);
        const level = toneAmplitude(steady, frequency, outRate);
        expect(Math.abs(decibels(level, AMPLITUDE)), `${frequency} Hz`).toBeLessThan(0.5);
        // All the energy is at that frequency: nothing else (a wrong pitch would leave the Goertzel bin empty).
        expect(Math.abs(decibels(rms(steady) * Math.SQRT2, level)), `${frequency} Hz purity`).toBeLessThan(0.1);
      }
    });
  }

  for (const [inRate, outRate] of PAIRS.filter(([a, b]) => a > b)) {
    it(`${inRate} → ${outRate} Hz: tones above the target's Nyquist are attenuated by at least 40 dB`, () => {
      const targetNyquist = outRate / 2;
      for (const frequency of [
        targetNyquist * 1.02,
        targetNyquist * 1.3,
        Math.min(inRate / 2 - 500, targetNyquist * 1.9),
      ]) {
        const out = resample(sineWave(frequency, inRate, inRate * SECONDS, AMPLITUDE), inRate, outRate);
        // Whatever survives, at any frequency (the alias lands at outRate - frequency), counts against the filter.
        const leaked = rms(middle(out, outRate)) * Math.SQRT2;
        expect(decibels(leaked, AMPLITUDE), `${frequency} Hz`).toBeLessThan(-40);
      }
    });
  }

  for (const [inRate, outRate] of PAIRS.filter(([a, b]) => a < b)) {
    it(`${inRate} → ${outRate} Hz: no images above the source's Nyquist`, () => {
      const frequency = Math.round(inRate * 0.3);
      const out = middle(resample(sineWave(frequency, inRate, inRate, AMPLITUDE), inRate, outRate), outRate);
      const image = toneAmplitude(out, inRate - frequency, outRate);
      expect(decibels(image, AMPLITUDE)).toBeLessThan(-40);
    });
  }

  describe('telephone-band source (PSTN audio at 8 kHz)', () => {
    const telephone = { sourceBandHz: TELEPHONE_BAND_HZ };

    it('keeps 300–3400 Hz within 0.5 dB and rejects the images of that band by at least 40 dB', () => {
      for (const frequency of [300, 1000, 2500, 3400]) {
        const out = middle(resample(sineWave(frequency, 8000, 8000, AMPLITUDE), 8000, 16_000, telephone), 16_000);
        expect(Math.abs(decibels(toneAmplitude(out, frequency, 16_000), AMPLITUDE)), `${frequency} Hz`).toBeLessThan(
          0.5,
        );
        expect(
          decibels(toneAmplitude(out, 8000 - frequency, 16_000), AMPLITUDE),
          `image of ${frequency} Hz`,
        ).toBeLessThan(-40);
      }
    });

    it('is a half-band filter at 8 → 16 kHz: every other output is the input sample itself, at half the taps', () => {
      const input = sineWave(1234, 8000, 8000, AMPLITUDE);
      const out = resample(input, 8000, 16_000, telephone);
      for (let i = 0; i < input.length; i++)
        if (out[2 * i] !== input[i]) expect.fail(`output ${2 * i} differs from input ${i}`);
      const narrow = polyphaseFilter(8000, 16_000, TELEPHONE_BAND_HZ);
      expect(narrow.taps).toBeLessThanOrEqual(polyphaseFilter(8000, 16_000).taps / 2 + 4);
      expect(narrow.branchTaps[0]).toBe(4);
    });

    it('is ignored when downsampling, where aliasing must be stopped whatever the source claims', () => {
      expect(polyphaseFilter(16_000, 8000, TELEPHONE_BAND_HZ)).toBe(polyphaseFilter(16_000, 8000));
    });

    it('streams seamlessly too', () => {
      const input = sineWave(700, 8000, 4000, AMPLITUDE);
      const resampler = new Resampler(8000, 16_000, telephone);
      const pieces = [resampler.push(input.subarray(0, 1001)), resampler.push(input.subarray(1001)), resampler.flush()];
      expect(Int16Array.from(pieces.flatMap((piece) => [...piece]))).toEqual(resample(input, 8000, 16_000, telephone));
    });
  });

  it('chunked output equals one-shot output, sample for sample, whatever the chunk sizes', () => {
    for (const [inRate, outRate] of PAIRS) {
      const input = sineWave(440, inRate, inRate, AMPLITUDE);
      // Add noise so that every sample matters, not just a smooth tone's.
      for (let i = 0; i < input.length; i++) input[i] = input[i]! + ((i * 7919) % 2001) - 1000;
      const whole = resample(input, inRate, outRate);
      const resampler = new Resampler(inRate, outRate);
      const pieces: Int16Array[] = [];
      const sizes = [1, 7, 160, 0, 333, 2, 1024, 59];
      for (let at = 0, s = 0; at < input.length; s++) {
        const size = sizes[s % sizes.length]!;
        pieces.push(resampler.push(input.subarray(at, at + size)));
        at += size;
      }
      pieces.push(resampler.flush());
      const joined = Int16Array.from(pieces.flatMap((piece) => [...piece]));
      expect(joined.length, `${inRate} → ${outRate}`).toBe(whole.length);
      expect(Buffer.from(joined.buffer).equals(Buffer.from(whole.buffer)), `${inRate} → ${outRate}`).toBe(true);
    }
  });

  it('emits exactly ceil(N × out / in) samples over a long stream of odd-sized chunks (no drift)', () => {
    for (const [inRate, outRate] of PAIRS) {
      const resampler = new Resampler(inRate, outRate);
      const chunk = new Int16Array(997);
      let received = 0;
      let emitted = 0;
      // A minute of audio at each rate, checked to the sample.
      while (received < inRate * 60) {
        emitted += resampler.push(chunk).length;
        received += chunk.length;
        // Never more than the input so far allows, never further behind than the lookahead.
        expect(emitted).toBeLessThanOrEqual(Math.ceil((received * outRate) / inRate));
      }
      emitted += resampler.flush().length;
      expect(emitted, `${inRate} → ${outRate}`).toBe(Math.ceil((received * outRate) / inRate));
    }
  });

  it('20 ms frames of 22.05 kHz audio give 20 ms frames at 16 kHz on average, holding back only the lookahead', () => {
    const resampler = new Resampler(22050, 16000);
    let emitted = 0;
    for (let frame = 1; frame <= 500; frame++) {
      emitted += resampler.push(new Int16Array(441)).length;
      const due = frame * 320;
      expect(due - emitted).toBeGreaterThanOrEqual(0);
      expect(due - emitted).toBeLessThanOrEqual(Math.ceil((resampler.lookaheadMs * 16000) / 1000) + 1);
    }
  });

  it('keeps the output aligned in time: a click at input time t comes out at output time t', () => {
    for (const [inRate, outRate] of [
      [8000, 16000],
      [48000, 16000],
      [22050, 16000],
    ] as const) {
      const input = new Int16Array(inRate / 10);
      const at = Math.floor(inRate / 20);
      input[at] = 20_000;
      const out = resample(input, inRate, outRate);
      let peak = 0;
      for (let i = 1; i < out.length; i++) if (Math.abs(out[i]!) > Math.abs(out[peak]!)) peak = i;
      expect(Math.abs(peak - (at * outRate) / inRate)).toBeLessThanOrEqual(1);
    }
  });

  it('starts a fresh stream after flush and after reset', () => {
    const input = sineWave(1000, 8000, 800);
    const resampler = new Resampler(8000, 16000);
    const first = [...resampler.push(input), ...resampler.flush()];
    const second = [...resampler.push(input), ...resampler.flush()];
    expect(second).toEqual(first);
    resampler.push(sineWave(300, 8000, 123));
    resampler.reset();
    expect([...resampler.push(input), ...resampler.flush()]).toEqual(first);
  });

  it('passes audio through untouched when the rates are equal', () => {
    const input = sineWave(1000, 16000, 320);
    const resampler = new Resampler(16000, 16000);
    const out = resampler.push(input);
    expect(out).toEqual(input);
    expect(out).not.toBe(input);
    expect(resampler.flush().length).toBe(0);
  });

  it('clamps instead of wrapping when the filter overshoots a full-scale signal', () => {
    const square = new Int16Array(8000).map((_, i) => (Math.floor(i / 20) % 2 ? 32767 : -32768));
    const out = resample(square, 8000, 16000);
    // Gibbs overshoot would wrap a full-scale edge to the opposite sign; clamped, the sign follows the input.
    for (let i = 200; i < out.length - 200; i += 40) expect(Math.sign(out[i]!)).toBe(Math.sign(square[i >> 1]!));
  });

  it('refuses rates that are not positive integers, and pairs needing too many phases', () => {
    expect(() => new Resampler(0, 16000)).toThrow(RangeError);
    expect(() => new Resampler(8000.5, 16000)).toThrow(RangeError);
    expect(() => polyphaseFilter(16000, MAX_PHASES * 16000 + 1)).toThrow(/phases/);
  });

  it('shares one filter design between resamplers of the same rates', () => {
    expect(polyphaseFilter(8000, 16000)).toBe(polyphaseFilter(8000, 16000));
  });
});
