import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RingBuffer } from './ring-buffer.ts';

describe('RingBuffer', () => {
  it('hands items back in insertion order', () => {
    const ring = new RingBuffer<number>(3);
    ring.push(1);
    ring.push(2);
    expect([ring.shift(), ring.shift(), ring.shift()]).toEqual([1, 2, undefined]);
  });

  it('evicts the oldest item when full and says so', () => {
    const ring = new RingBuffer<number>(2);
    expect(ring.push(1)).toBe(false);
    expect(ring.push(2)).toBe(false);
    expect(ring.push(3)).toBe(true);
    expect(ring.size).toBe(2);
    expect([ring.shift(), ring.shift()]).toEqual([2, 3]);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new RingBuffer(0)).toThrow(RangeError);
    expect(() => new RingBuffer(1.5)).toThrow(RangeError);
  });

  it('keeps exactly the newest `capacity` items of any push/shift sequence', () => {
    const op = fc.oneof(
      fc.integer().map((n) => ({ push: n })),
      fc.constant({ shift: true as const }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(op, { maxLength: 100 }), (capacity, ops) => {
        const ring = new RingBuffer<number>(capacity);
        const model: number[] = [];
        for (const o of ops) {
          if ('push' in o) {
            const evicted = ring.push(o.push);
            model.push(o.push);
            const expectEviction = model.length > capacity;
            if (expectEviction) model.shift();
            if (evicted !== expectEviction) return false;
          } else if (ring.shift() !== model.shift()) {
            return false;
          }
        }
        return ring.size === model.length;
      }),
    );
  });
});
