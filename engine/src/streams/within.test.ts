import { describe, expect, it } from 'vitest';
import { settledWithin } from './within.ts';

describe('settledWithin', () => {
  it('answers true when the work settles in time, fulfilled or rejected, and false at the deadline', async () => {
    expect(await settledWithin(Promise.resolve('done'), 1_000)).toBe(true);
    expect(await settledWithin(Promise.reject(new Error('failed')), 1_000)).toBe(true);
    const started = Date.now();
    expect(await settledWithin(new Promise(() => {}), 50)).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });
});
