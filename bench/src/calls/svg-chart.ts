/**
 * A line-and-point chart as a standalone SVG file, written by hand (no chart library): axes with round-numbered
 * ticks and light grid lines, one colour per series with a legend, and dashed reference lines (a gate's limit, a
 * target) labelled where they are drawn. Sized to read at a glance in a README or on GitHub.
 */

export interface Point {
  x: number;
  y: number;
}

export interface Series {
  name: string;
  color: string;
  points: Point[];
  /** Join the points with a line (default true). */
  line?: boolean;
  /** Draw each point as a dot (default false). */
  dots?: boolean;
}

/** A dashed reference line: horizontal at `y`, or vertical at `x`. */
export interface Reference {
  label: string;
  color: string;
  x?: number;
  y?: number;
}

export interface ChartSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  references?: Reference[];
  /** Axis ranges; by default from the data (and references), with 0 included. */
  xRange?: [number, number];
  yRange?: [number, number];
}

export const WIDTH = 720;
export const HEIGHT = 400;
/** Plot area inside the margins: room for the title and legend above, tick labels and axis titles around. */
export const PLOT = { left: 72, right: WIDTH - 24, top: 64, bottom: HEIGHT - 56 } as const;
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"';

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** About `count` round tick values (steps of 1, 2 or 5 × 10ⁿ) covering [min, max]. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let v = Math.ceil(min / step - 1e-9) * step; v <= max + step * 1e-9; v += step)
    ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

/** [min, max] of `values`, widened to include 0 and rounded out to the tick step. */
export function axisRange(values: readonly number[]): [number, number] {
  const finite = values.filter((v) => Number.isFinite(v));
  const lo = Math.min(0, ...finite);
  const hi = Math.max(0, ...finite);
  if (hi === lo) return [lo, lo + 1];
  const ticks = niceTicks(lo, hi);
  const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : hi - lo;
  return [Math.floor(lo / step) * step, Math.ceil(hi / step) * step];
}

export function formatTick(value: number): string {
  if (Math.abs(value) >= 1000) return value.toLocaleString('en-US');
  return String(Number(value.toPrecision(6)));
}

export function renderChart(spec: ChartSpec): string {
  const references = spec.references ?? [];
  const xs = [
    ...spec.series.flatMap((s) => s.points.map((p) => p.x)),
    ...references.flatMap((r) => (r.x === undefined ? [] : [r.x])),
  ];
  const ys = [
    ...spec.series.flatMap((s) => s.points.map((p) => p.y)),
    ...references.flatMap((r) => (r.y === undefined ? [] : [r.y])),
  ];
  const [x0, x1] = spec.xRange ?? axisRange(xs);
  const [y0, y1] = spec.yRange ?? axisRange(ys);
  const px = (x: number) => PLOT.left + ((x - x0) / (x1 - x0)) * (PLOT.right - PLOT.left);
  const py = (y: number) => PLOT.bottom - ((y - y0) / (y1 - y0)) * (PLOT.bottom - PLOT.top);
  const at = (v: number) => v.toFixed(1);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" ${FONT} font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${PLOT.left}" y="24" font-size="14" font-weight="600" fill="#111">${escapeXml(spec.title)}</text>`,
  ];
  for (const tick of niceTicks(x0, x1)) {
    out.push(`<line x1="${at(px(tick))}" y1="${PLOT.top}" x2="${at(px(tick))}" y2="${PLOT.bottom}" stroke="#eee"/>`);
    out.push(
      `<text x="${at(px(tick))}" y="${PLOT.bottom + 16}" text-anchor="middle" fill="#444">${formatTick(tick)}</text>`,
    );
  }
  for (const tick of niceTicks(y0, y1)) {
    out.push(`<line x1="${PLOT.left}" y1="${at(py(tick))}" x2="${PLOT.right}" y2="${at(py(tick))}" stroke="#eee"/>`);
    out.push(
      `<text x="${PLOT.left - 6}" y="${at(py(tick) + 4)}" text-anchor="end" fill="#444">${formatTick(tick)}</text>`,
    );
  }
  out.push(`<line x1="${PLOT.left}" y1="${PLOT.bottom}" x2="${PLOT.right}" y2="${PLOT.bottom}" stroke="#888"/>`);
  out.push(`<line x1="${PLOT.left}" y1="${PLOT.top}" x2="${PLOT.left}" y2="${PLOT.bottom}" stroke="#888"/>`);
  out.push(
    `<text x="${(PLOT.left + PLOT.right) / 2}" y="${HEIGHT - 14}" text-anchor="middle" fill="#222">${escapeXml(spec.xLabel)}</text>`,
  );
  out.push(
    `<text transform="translate(18 ${(PLOT.top + PLOT.bottom) / 2}) rotate(-90)" text-anchor="middle" fill="#222">${escapeXml(spec.yLabel)}</text>`,
  );

  references.forEach((ref, i) => {
    if (ref.y !== undefined && ref.y >= y0 && ref.y <= y1) {
      out.push(
        `<line x1="${PLOT.left}" y1="${at(py(ref.y))}" x2="${PLOT.right}" y2="${at(py(ref.y))}" stroke="${ref.color}" stroke-dasharray="6 4" stroke-width="1.5"/>`,
      );
      // Below the line: above it, at the top of the plot, the label would run into the legend.
      out.push(
        `<text x="${PLOT.right - 4}" y="${at(py(ref.y) + 14)}" text-anchor="end" fill="${ref.color}">${escapeXml(ref.label)}</text>`,
      );
    }
    if (ref.x !== undefined && ref.x >= x0 && ref.x <= x1) {
      out.push(
        `<line x1="${at(px(ref.x))}" y1="${PLOT.top}" x2="${at(px(ref.x))}" y2="${PLOT.bottom}" stroke="${ref.color}" stroke-dasharray="6 4" stroke-width="1.5"/>`,
      );
      // Labels of neighbouring vertical lines would overlap: each goes one line lower.
      out.push(
        `<text x="${at(px(ref.x) + 4)}" y="${PLOT.top + 12 + i * 14}" fill="${ref.color}">${escapeXml(ref.label)}</text>`,
      );
    }
  });
  for (const series of spec.series) {
    const points = series.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
    if ((series.line ?? true) && points.length > 1) {
      out.push(
        `<polyline fill="none" stroke="${series.color}" stroke-width="2" points="${points.map((p) => `${at(px(p.x))},${at(py(p.y))}`).join(' ')}"/>`,
      );
    }
    if (series.dots)
      for (const p of points)
        out.push(`<circle cx="${at(px(p.x))}" cy="${at(py(p.y))}" r="3.5" fill="${series.color}"/>`);
  }
  let legendX = PLOT.left;
  for (const series of spec.series) {
    out.push(`<rect x="${legendX}" y="38" width="12" height="12" fill="${series.color}"/>`);
    out.push(`<text x="${legendX + 16}" y="48" fill="#222">${escapeXml(series.name)}</text>`);
    legendX += 28 + series.name.length * 6.5;
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
