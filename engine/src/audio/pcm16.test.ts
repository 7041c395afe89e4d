import { describe, expect, it } from 'vitest';
import { pcm16FromBytesBE, pcm16FromBytesLE, pcm16ToBytesBE, pcm16ToBytesLE, pcm16ViewLE } from './pcm16.ts';

const SAMPLES = Int16Array.of(0, 1, -1, 32767, -32768, 0x1234);

describe('PCM16 bytes', () => {
  it('writes little-endian and reads it back', () => {
    const bytes = pcm16ToBytesLE(SAMPLES);
    expect([...bytes.subarray(0, 8)]).toEqual([0x00, 0x00, 0x01, 0x00, 0xff, 0xff, 0xff, 0x7f]);
    expect([...bytes.subarray(10)]).toEqual([0x34, 0x12]);
    expect(pcm16FromBytesLE(bytes)).toEqual(SAMPLES);
  });

  it('writes network-order L16 and reads it back', () => {
    const bytes = pcm16ToBytesBE(SAMPLES);
    expect([...bytes.subarray(0, 8)]).toEqual([0x00, 0x00, 0x00, 0x01, 0xff, 0xff, 0x7f, 0xff]);
    expect([...bytes.subarray(10)]).toEqual([0x12, 0x34]);
    expect(pcm16FromBytesBE(bytes)).toEqual(SAMPLES);
  });

  it('reads bytes at an odd offset (a slice of a larger Buffer) and ignores a trailing half sample', () => {
    const backing = new Uint8Array(16);
    backing.set(pcm16ToBytesLE(Int16Array.of(-2, 300)), 1);
    const odd = backing.subarray(1, 6);
    expect(pcm16FromBytesLE(odd)).toEqual(Int16Array.of(-2, 300));
    expect(pcm16ViewLE(odd)).toEqual(Int16Array.of(-2, 300));
  });

  it('copies on read, so the caller may reuse its bytes; views only when asked', () => {
    const bytes = pcm16ToBytesLE(Int16Array.of(5, 6));
    const copy = pcm16FromBytesLE(bytes);
    const aligned = new Uint8Array(bytes);
    const view = pcm16ViewLE(aligned);
    bytes.fill(0);
    aligned.fill(0);
    expect(copy).toEqual(Int16Array.of(5, 6));
    expect(view).toEqual(Int16Array.of(0, 0));
  });

  it('writes from a subarray view without dragging the rest of its buffer along', () => {
    const samples = Int16Array.of(1, 2, 3, 4).subarray(1, 3);
    expect(pcm16FromBytesLE(pcm16ToBytesLE(samples))).toEqual(Int16Array.of(2, 3));
  });
});
