import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AudioFrameError, decodeAudioFrame, encodeAudioFrame, isAudioFrame } from './audio-frame.ts';

describe('audio frames on the bus', () => {
  it('round-trip header and samples exactly', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(8000, 16000, 22050, 24000, 48000),
        fc.nat({ max: 0xffffffff }),
        fc.nat({ max: 0xffffffff }),
        fc.array(fc.integer({ min: -32768, max: 32767 }), { maxLength: 960 }),
        (sampleRate, requestNumber, sequence, values) => {
          const frame = { sampleRate, requestNumber, sequence, samples: Int16Array.from(values) };
          const decoded = decodeAudioFrame(encodeAudioFrame(frame));
          expect(decoded.sampleRate).toBe(sampleRate);
          expect(decoded.requestNumber).toBe(requestNumber);
          expect(decoded.sequence).toBe(sequence);
          expect([...decoded.samples]).toEqual(values);
        },
      ),
    );
  });

  it('are told apart from JSON control messages', () => {
    expect(
      isAudioFrame(
        encodeAudioFrame({ sampleRate: 16000, requestNumber: 0, sequence: 1, samples: new Int16Array(320) }),
      ),
    ).toBe(true);
    expect(isAudioFrame(new TextEncoder().encode('{"type":"end"}'))).toBe(false);
  });

  it('refuse malformed payloads with a coded error', () => {
    const good = encodeAudioFrame({ sampleRate: 16000, requestNumber: 0, sequence: 1, samples: new Int16Array(4) });
    expect(() => decodeAudioFrame(good.subarray(0, 13))).toThrow(AudioFrameError);
    const future = Uint8Array.from(good);
    future[1] = 9;
    expect(() => decodeAudioFrame(future)).toThrow(/version 9/);
  });
});
