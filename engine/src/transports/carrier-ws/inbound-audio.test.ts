import { describe, expect, it } from 'vitest';
import { ENGINE_FRAME_SAMPLES } from '../../audio/format.ts';
import { InboundAudio } from './inbound-audio.ts';

describe('inbound carrier audio', () => {
  it.each([8000, 16000, 24000])(
    'hands each 20 ms frame at %i Hz to the engine as soon as it arrives, not one frame later',
    (rate) => {
      const frames: Int16Array[] = [];
      const inbound = new InboundAudio({ encoding: 'l16', sampleRate: rate, byteOrder: 'le' }, (samples) =>
        frames.push(samples),
      );
      const tone = Int16Array.from({ length: rate / 50 }, (_, i) =>
        Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)),
      );
      for (let chunk = 1; chunk <= 10; chunk += 1) {
        inbound.push(tone, chunk);
        expect(frames).toHaveLength(chunk);
      }
      expect(frames.every((f) => f.length === ENGINE_FRAME_SAMPLES)).toBe(true);
      // After the first frame (which leads with the resampler's lookahead of silence) every frame is all tone.
      expect(frames.slice(1).every((f) => f.some((v) => Math.abs(v) > 4000))).toBe(true);
    },
  );
});
