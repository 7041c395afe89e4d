import { describe, expect, it } from 'vitest';
import { everyShared } from './shared-interval.ts';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('shared intervals', () => {
  it('run every callback of a period from one timer, and stop each on its own', async () => {
    let a = 0;
    let b = 0;
    const stopA = everyShared(20, () => {
      a += 1;
    });
    const stopB = everyShared(20, () => {
      b += 1;
    });
    await wait(110);
    expect(a).toBeGreaterThanOrEqual(3);
    expect(Math.abs(a - b)).toBeLessThanOrEqual(1);
    stopA();
    const frozen = a;
    await wait(60);
    expect(a).toBe(frozen);
    expect(b).toBeGreaterThan(frozen);
    stopB();
  });

  it('keep running the others when one callback throws', async () => {
    let ran = 0;
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    const stopBad = everyShared(15, () => {
      throw new Error('broken check');
    });
    const stopGood = everyShared(15, () => {
      ran += 1;
    });
    await wait(60);
    stopBad();
    stopGood();
    process.off('warning', onWarning);
    expect(ran).toBeGreaterThanOrEqual(2);
    expect(warnings).toContain('broken check');
  });
});
