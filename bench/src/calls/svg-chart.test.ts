import { describe, expect, it } from 'vitest';
import { axisRange, escapeXml, formatTick, niceTicks, PLOT, renderChart } from './svg-chart.ts';

describe('niceTicks', () => {
  it('steps by 1, 2 or 5 × a power of ten', () => {
    expect(niceTicks(0, 100)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(niceTicks(0, 7)).toEqual([0, 2, 4, 6]);
    expect(niceTicks(0, 0.5)).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5]);
    expect(niceTicks(50, 1_000)).toEqual([200, 400, 600, 800, 1_000]);
  });
});

describe('axisRange', () => {
  it('includes zero and rounds out to a tick', () => {
    expect(axisRange([12, 37])).toEqual([0, 40]);
    expect(axisRange([])).toEqual([0, 1]);
  });
});

describe('renderChart', () => {
  const svg = renderChart({
    title: 'Gap p90 <by> calls',
    xLabel: 'calls',
    yLabel: 'ms',
    xRange: [0, 100],
    yRange: [0, 10],
    series: [
      {
        name: 'median',
        color: '#123456',
        points: [
          { x: 0, y: 0 },
          { x: 100, y: 10 },
        ],
        dots: true,
      },
    ],
    references: [{ label: 'gate 5 ms', color: '#c00', y: 5 }],
  });

  it('is one standalone SVG with its title escaped', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trim().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('Gap p90 &lt;by&gt; calls');
  });

  it('maps data to the plot area: (0, 0) bottom left, the maxima top right', () => {
    expect(svg).toContain(
      `points="${PLOT.left.toFixed(1)},${PLOT.bottom.toFixed(1)} ${PLOT.right.toFixed(1)},${PLOT.top.toFixed(1)}"`,
    );
    expect(svg.match(/<circle /g)).toHaveLength(2);
  });

  it('draws the reference line halfway up with its label, and a legend entry per series', () => {
    const y = ((PLOT.top + PLOT.bottom) / 2).toFixed(1);
    expect(svg).toContain(`y1="${y}" x2="${PLOT.right}" y2="${y}" stroke="#c00" stroke-dasharray="6 4"`);
    expect(svg).toContain('>gate 5 ms</text>');
    expect(svg).toContain('>median</text>');
  });

  it('labels the ticks', () => {
    for (const tick of ['0', '20', '40', '60', '80', '100', '2', '4', '6', '8', '10'])
      expect(svg).toContain(`>${tick}</text>`);
  });
});

describe('helpers', () => {
  it('escapes XML and formats ticks', () => {
    expect(escapeXml('a & "b"')).toBe('a &amp; &quot;b&quot;');
    expect(formatTick(1_500)).toBe('1,500');
    expect(formatTick(0.30000000000000004)).toBe('0.3');
  });
});
