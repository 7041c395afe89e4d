import { describe, expect, it } from 'vitest';
import { cdfAxisEnd, cdfPoints, cpuChart, gapChart, latencyCdfChart, median } from './charts.ts';
import { level, PROVIDER_MS } from './test-runs.ts';

describe('cdfPoints', () => {
  it('gives each value the share of values at or below it', () => {
    expect(cdfPoints([30, 10, 20, 40])).toEqual([
      { x: 10, y: 25 },
      { x: 20, y: 50 },
      { x: 30, y: 75 },
      { x: 40, y: 100 },
    ]);
  });

  it('thins long samples and still ends at 100 %', () => {
    const points = cdfPoints(
      Array.from({ length: 1_000 }, (_, i) => i),
      100,
    );
    expect(points.length).toBe(101);
    expect(points.at(-1)).toEqual({ x: 999, y: 100 });
    expect(points[0]).toEqual({ x: 0, y: 0.1 });
  });
});

describe('cdfAxisEnd', () => {
  it('ends a little past the 99th percentile, and never before twice the p99 target', () => {
    const samples = [...Array.from({ length: 99 }, (_, i) => 20 + i * 0.5), 500];
    expect(cdfAxisEnd(samples)).toBe(90); // p99 = 69 → 86.25 → 90
    expect(cdfAxisEnd([1, 2, 3])).toBe(60);
  });
});

describe('median', () => {
  it('takes the middle, or the mean of the two middles', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBeNaN();
  });
});

describe('charts', () => {
  const levels = [level(50, 2, { engineCpuMs: 12_000 }), level(100, 2, { engineCpuMs: 30_000 })];

  it('draws the latency CDF per carrier with the targets', () => {
    const svg = latencyCdfChart(levels[1]!, PROVIDER_MS);
    expect(svg).toContain('at 100 calls');
    expect(svg).toContain('>carrier-a (300 turns)</text>');
    expect(svg).toContain('>carrier-b (300 turns)</text>');
    expect(svg).toContain('target p50 ≤ 10 ms');
  });

  it("names the slow tail cut off the CDF's axis", () => {
    // Each call: 99 turns of 450 ms and one of 900 ms, so 1 % of the turns are slow and the axis ends at 60 ms.
    const slow = level(100, 1, { window: { turnMs: [...Array<number>(99).fill(450), 900] } });
    expect(latencyCdfChart(slow, PROVIDER_MS)).toContain(
      ">Parley's share of a turn at 100 calls (100 slower, to 470 ms, beyond the axis)</text>",
    );
  });

  it('draws a dot per run, failed runs apart, and the gate on the gap and CPU charts', () => {
    const gap = gapChart([...levels, level(150, 1, { engineCpuMs: 60_000 })]);
    expect(gap.match(/<circle /g)).toHaveLength(5);
    expect(gap.match(/<circle [^>]*fill="#c0392b"/g)).toHaveLength(1);
    expect(gap).toContain('gate: p90 &lt; 5 ms');
    const cpu = cpuChart(levels);
    expect(cpu).toContain('gate: engine &lt; 80 %');
    expect(cpu).toContain('>engine process (gated)</text>');
  });
});
