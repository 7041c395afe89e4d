import { describe, expect, it } from 'vitest';
import { OPUS_PRE_SKIP } from './ogg-opus-writer.ts';
import { OpusDecoder, OpusEncoder, opusBackend, type OpusBackendName, type OpusSampleRate } from './opus-codec.ts';
import { decibels, rms, sineWave, toneAmplitude } from './tone.ts';

/** Encodes `seconds` of a tone frame by frame and decodes it back. */
function roundTrip(
  rate: OpusSampleRate,
  backend: OpusBackendName,
  frequency: number,
  seconds = 1,
  decodeRate: OpusSampleRate = rate,
) {
  const encoder = new OpusEncoder(rate, { backend });
  const decoder = new OpusDecoder(decodeRate, { backend });
  const frames = (seconds * 1000) / 20;
  const out: number[] = [];
  const sizes: number[] = [];
  for (let f = 0; f < frames; f++) {
    const packet = encoder.encode(sineWave(frequency, rate, encoder.frameSamples, 10_000, f * encoder.frameSamples));
    sizes.push(packet.length);
    out.push(...decoder.decode(packet));
  }
  encoder.close();
  decoder.close();
  return { decoded: Int16Array.from(out), sizes };
}

describe('Opus', () => {
  it('loads the native backend in this installation', () => {
    expect(opusBackend()).toBe('native');
  });

  for (const backend of ['native', 'wasm'] as const) {
    for (const rate of [48_000, 16_000] as const) {
      it(`${backend}, ${rate / 1000} kHz: a 20 ms frame becomes one packet and comes back as 20 ms of the same tone`, () => {
        const { decoded, sizes } = roundTrip(rate, backend, 440);
        expect(decoded.length).toBe(rate);
        // 32 kbit/s is 80 bytes per 20 ms on average; allow the encoder its variable bitrate.
        const average = sizes.reduce((a, b) => a + b, 0) / sizes.length;
        expect(average).toBeGreaterThan(40);
        expect(average).toBeLessThan(160);
        const steady = decoded.subarray(rate / 10);
        expect(Math.abs(decibels(toneAmplitude(steady, 440, rate), 10_000))).toBeLessThan(1);
        expect(Math.abs(decibels(rms(steady) * Math.SQRT2, 10_000))).toBeLessThan(1);
      });
    }
  }

  it('decodes at a rate other than the encoder’s (48 kHz packets to 16 kHz PCM)', () => {
    const { decoded } = roundTrip(48_000, 'native', 1000, 1, 16_000);
    expect(decoded.length).toBe(16_000);
    expect(Math.abs(decibels(toneAmplitude(decoded.subarray(1600), 1000, 16_000), 10_000))).toBeLessThan(1);
  });

  it('native and wasm packets decode on either backend', () => {
    const frame = sineWave(300, 48_000, 960);
    const nativePacket = new OpusEncoder(48_000, { backend: 'native' }).encode(frame);
    const wasmDecoder = new OpusDecoder(48_000, { backend: 'wasm' });
    expect(wasmDecoder.decode(nativePacket).length).toBe(960);
    wasmDecoder.close();
  });

  it(`delays its output by the lookahead that OGG declares as pre-skip (${OPUS_PRE_SKIP} samples at 48 kHz)`, () => {
    for (const rate of [48_000, 16_000] as const) {
      const encoder = new OpusEncoder(rate, { backend: 'native' });
      const decoder = new OpusDecoder(48_000, { backend: 'native' });
      const click = new Int16Array(encoder.frameSamples * 5);
      click[encoder.frameSamples * 2] = 30_000;
      const out: number[] = [];
      for (let f = 0; f < 5; f++)
        out.push(
          ...decoder.decode(encoder.encode(click.subarray(f * encoder.frameSamples, (f + 1) * encoder.frameSamples))),
        );
      let peak = 0;
      for (let i = 0; i < out.length; i++) if (Math.abs(out[i]!) > Math.abs(out[peak]!)) peak = i;
      const delay = peak - (encoder.frameSamples * 2 * 48_000) / rate;
      expect(Math.abs(delay - OPUS_PRE_SKIP), `${rate} Hz`).toBeLessThanOrEqual(48_000 / rate);
    }
  });

  it('refuses frames that are not 20 ms, rates Opus does not have, and use after close', () => {
    const encoder = new OpusEncoder(16_000);
    expect(() => encoder.encode(new Int16Array(160))).toThrow(RangeError);
    expect(() => new OpusEncoder(22_050 as OpusSampleRate)).toThrow(RangeError);
    encoder.close();
    encoder.close();
    expect(() => encoder.encode(new Int16Array(320))).toThrow(/closed/);
  });

  it('throws on a corrupt packet instead of returning garbage', () => {
    for (const backend of ['native', 'wasm'] as const) {
      const decoder = new OpusDecoder(48_000, { backend });
      // TOC byte announcing code 3 (arbitrary frame count) with a frame count of 0: invalid per RFC 6716 §3.2.5.
      expect(() => decoder.decode(Uint8Array.of(0xfb, 0x00)), backend).toThrow();
      decoder.close();
    }
  });
});
