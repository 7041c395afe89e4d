import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pcm16ToBytesLE } from '../audio/pcm16.ts';
import { Pcm16Reader } from './pcm16-reader.ts';

describe('Pcm16Reader', () => {
  it('carries half a sample over to the next chunk', () => {
    const reader = new Pcm16Reader();
    const bytes = pcm16ToBytesLE(Int16Array.from([1, -2, 300]));
    expect([...reader.push(bytes.subarray(0, 3))]).toEqual([1]);
    expect(reader.pendingByte).toBe(true);
    expect([...reader.push(bytes.subarray(3, 3))]).toEqual([]);
    expect([...reader.push(bytes.subarray(3, 4))]).toEqual([-2]);
    expect([...reader.push(bytes.subarray(4))]).toEqual([300]);
    expect(reader.pendingByte).toBe(false);
  });

  it('reads the same samples however the bytes are cut, even at odd offsets (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -32768, max: 32767 })), fc.array(fc.nat()), (values, offsets) => {
        // One spare leading byte, so every chunk below is a view at an odd offset of its buffer.
        const padded = new Uint8Array(values.length * 2 + 1);
        padded.set(pcm16ToBytesLE(Int16Array.from(values)), 1);
        const bytes = padded.subarray(1);
        const points = [...new Set(offsets.map((o) => o % (bytes.length + 1)))].sort((a, b) => a - b);
        const reader = new Pcm16Reader();
        const out: number[] = [];
        let start = 0;
        for (const point of [...points, bytes.length]) {
          out.push(...reader.push(bytes.subarray(start, point)));
          start = point;
        }
        expect(out).toEqual(values);
        expect(reader.pendingByte).toBe(false);
      }),
    );
  });
});
