import { describe, expect, it } from 'vitest';
import { OutboundLateness } from './outbound-lateness.ts';

describe('OutboundLateness', () => {
  it('holds each stream against its own 20 ms schedule, its earliest packet on time', () => {
    const lateness = new OutboundLateness();
    // Stream 1 starts at 1000 ms: 97 packets on time, three late by 15, 4 and 2 ms.
    const late = new Map([
      [50, 15],
      [60, 4],
      [70, 2],
    ]);
    for (let i = 0; i < 100; i += 1) lateness.add(1, 500 + i, 1000 + i * 20 + (late.get(i) ?? 0));
    // Stream 2 starts 7 ms into the tick (its place in the sends: a constant, not lateness) and crosses the
    // 16-bit sequence wrap; its first packet came 3 ms late, so its later ones are 3 ms "early" and count as on time.
    for (let i = 0; i < 100; i += 1) lateness.add(2, (65_500 + i) % 65_536, 1007 + i * 20 + (i === 0 ? 3 : 0));
    const summary = lateness.summary(10);
    expect(summary.packets).toBe(200);
    expect(summary.streams).toBe(2);
    expect(summary.p50Ms).toBe(0);
    expect(summary.maxMs).toBe(15);
    expect(summary.over).toBe(1);
    // Sorted: 196 on time, then 2, 3, 4 and 15 ms: the 99th percentile is the 198th smallest, the 3 ms one.
    expect(summary.p99Ms).toBe(3);
  });

  it('reports nothing measured as NaN, not as zero lateness', () => {
    const summary = new OutboundLateness().summary(10);
    expect(summary.packets).toBe(0);
    expect(summary.p99Ms).toBeNaN();
  });
});
