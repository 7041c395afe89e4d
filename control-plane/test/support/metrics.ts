/** Reads a /metrics answer (Prometheus text format) the way a scraper does: each series line to its value. */

export interface Scrape {
  /** The raw text. */
  text: string;
  /** The value of the series whose name is `name` and whose labels include `labels`, summed over the rest. */
  value(name: string, labels?: Record<string, string>): number;
  /** Every label set `name` has, as objects. */
  labelSets(name: string): Record<string, string>[];
}

const SERIES = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Scrape {
  const series: { name: string; labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split('\n')) {
    const match = SERIES.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key!] = value!;
    series.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  const matching = (name: string, labels: Record<string, string> = {}) =>
    series.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  return {
    text,
    value: (name, labels) => matching(name, labels).reduce((sum, s) => sum + s.value, 0),
    labelSets: (name) => matching(name).map((s) => s.labels),
  };
}

/** GET `<base>/metrics`, expecting 200. */
export async function scrape(base: string, token?: string): Promise<Scrape> {
  const res = await fetch(`${base}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  if (res.status !== 200) throw new Error(`GET ${base}/metrics answered ${res.status}: ${await res.text()}`);
  return parseMetrics(await res.text());
}
