import { describe, expect, it } from 'vitest';
import { ENGINE_FRAME_SAMPLES } from './format.ts';
import { Framer } from './framer.ts';

function ramp(from: number, length: number): Int16Array {
  return Int16Array.from({ length }, (_, i) => from + i);
}

describe('Framer', () => {
  it('yields whole frames from chunks of any length and keeps the remainder for the next chunk', () => {
    const framer = new Framer(160);
    const frames: Int16Array[] = [];
    let next = 0;
    for (const size of [1, 159, 100, 400, 0, 7, 3000, 13]) {
      frames.push(...framer.push(ramp(next, size)));
      next += size;
    }
    expect(frames.every((frame) => frame.length === 160)).toBe(true);
    expect(frames.length).toBe(Math.floor(next / 160));
    expect(framer.pending).toBe(next % 160);
    const joined = frames.flatMap((frame) => [...frame]);
    expect(joined).toEqual([...ramp(0, frames.length * 160)]);
  });

  it('pads the last partial frame with silence on flush, and returns nothing when nothing is pending', () => {
    const framer = new Framer(4);
    expect(framer.push(ramp(1, 6))).toEqual([Int16Array.of(1, 2, 3, 4)]);
    expect(framer.flush()).toEqual(Int16Array.of(5, 6, 0, 0));
    expect(framer.flush()).toBeUndefined();
    expect(framer.pending).toBe(0);
  });

  it('hands out frames that share nothing with the caller’s buffer', () => {
    const framer = new Framer(4);
    const buffer = ramp(1, 8);
    const [first] = framer.push(buffer);
    buffer.fill(0);
    expect(first).toEqual(Int16Array.of(1, 2, 3, 4));
  });

  it('drops the remainder on reset', () => {
    const framer = new Framer(4);
    framer.push(ramp(1, 3));
    framer.reset();
    expect(framer.push(ramp(10, 4))).toEqual([Int16Array.of(10, 11, 12, 13)]);
  });

  it('defaults to the engine frame (20 ms at 16 kHz) and refuses nonsense lengths', () => {
    expect(new Framer().frameSamples).toBe(ENGINE_FRAME_SAMPLES);
    expect(() => new Framer(0)).toThrow(RangeError);
    expect(() => new Framer(1.5)).toThrow(RangeError);
  });
});
