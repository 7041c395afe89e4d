import { describe, expect, it } from 'vitest';
import { RESULT_BUDGET_BYTES, listResult, valueResult } from '../src/tools/results.ts';

const parse = (result: ReturnType<typeof listResult>) => JSON.parse((result.content[0] as { text: string }).text);

describe('list results', () => {
  it('keeps only the asked fields of each item', () => {
    const shown = parse(
      listResult({ items: [{ id: 'a', name: 'A', big: 'x' }], total: 1, page: 1, limit: 20 }, [
        'id',
        'name',
        'missing',
      ]),
    );
    expect(shown).toEqual({ items: [{ id: 'a', name: 'A' }], count: 1, limit: 20, total: 1, page: 1 });
  });

  it('cuts at the budget to whole items, as many as fit, with a note', () => {
    const items = Array.from({ length: 100 }, (_, i) => ({ id: i, text: 'x'.repeat(700) }));
    const shown = parse(listResult({ items, total: 100, page: 1, limit: 100 }));
    expect(Buffer.byteLength(JSON.stringify(shown))).toBeLessThanOrEqual(RESULT_BUDGET_BYTES);
    expect(shown.count).toBe(shown.items.length);
    expect(shown.count).toBeGreaterThan(35);
    expect(shown.count).toBeLessThan(45);
    // One more item would not have fitted.
    expect(Buffer.byteLength(JSON.stringify({ ...shown, items: items.slice(0, shown.count + 1) }))).toBeGreaterThan(
      RESULT_BUDGET_BYTES,
    );
    expect(shown.note).toMatch(/^Cut at about 30 KB: \d+ of the 100 items/);
  });

  it('scrubs items', () => {
    const shown = parse(listResult({ items: [{ id: 'a', authToken: 'secret' }], limit: 20 }));
    expect(shown.items).toEqual([{ id: 'a', authToken: '[redacted]' }]);
  });
});

describe('value results', () => {
  it('cuts a record larger than the budget and says so', () => {
    const result = valueResult({ text: 'y'.repeat(50_000) });
    expect(result.content).toHaveLength(2);
    expect(Buffer.byteLength((result.content[0] as { text: string }).text)).toBeLessThanOrEqual(RESULT_BUDGET_BYTES);
    expect((result.content[1] as { text: string }).text).toMatch(/^Cut at about 30 KB/);
  });
});
