import { describe, expect, it } from 'vitest';
import { percentile, SampleBuffer } from './percentiles.ts';

describe('percentile (nearest rank)', () => {
  const sorted = Float64Array.from({ length: 100 }, (_, i) => i + 1);

  it('picks the smallest sample with p % at or below it', () => {
    expect(percentile(sorted, 50)).toBe(50);
    expect(percentile(sorted, 99)).toBe(99);
    expect(percentile(sorted, 100)).toBe(100);
    expect(percentile(Float64Array.of(7), 1)).toBe(7);
  });

  it('is NaN without samples and refuses p outside (0, 100]', () => {
    expect(percentile(new Float64Array(0), 50)).toBeNaN();
    expect(() => percentile(sorted, 0)).toThrow(RangeError);
    expect(() => percentile(sorted, 101)).toThrow(RangeError);
  });
});

describe('SampleBuffer', () => {
  it('keeps every sample past its initial capacity and sorts numerically', () => {
    const buffer = new SampleBuffer();
    const count = 70_000;
    for (let i = count; i > 0; i--) buffer.push(i / 10);
    const sorted = buffer.sorted();
    expect(buffer.length).toBe(count);
    expect(sorted[0]).toBe(0.1);
    expect(sorted[count - 1]).toBe(7000);
    expect(percentile(sorted, 50)).toBe(3500);
  });
});
