import { describe, expect, it } from 'vitest';
import { FairSlots } from './fair-slots.ts';

/** A task that records its start under `key` and ends when released. */
function gate() {
  const started: string[] = [];
  const releases: (() => void)[] = [];
  const task = (key: string) => () => {
    started.push(key);
    return new Promise<void>((resolve) => releases.push(resolve));
  };
  const releaseOne = async () => {
    releases.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { started, task, releaseOne };
}

describe('FairSlots', () => {
  it('gives every key its first slot before any key its second, asked in order', async () => {
    const slots = new FairSlots(2);
    const { started, task, releaseOne } = gate();
    const runs = [
      ...['a', 'a', 'a', 'a'].map((k) => slots.run(k, task(k))),
      ...['b', 'b'].map((k) => slots.run(k, task(k))),
      slots.run('c', task('c')),
    ];
    await new Promise((resolve) => setImmediate(resolve));
    // Asked for together: a's first and b's first run, then c's first before anyone's second.
    expect(started).toEqual(['a', 'b']);
    for (let i = 0; i < 5; i++) await releaseOne();
    expect(started).toEqual(['a', 'b', 'c', 'a', 'b', 'a', 'a']);
    // One asking later, alone, is served before those given more.
    const late = slots.run('d', task('d'));
    await releaseOne();
    expect(started.at(-1)).toBe('d');
    await releaseOne();
    await releaseOne();
    await Promise.all([...runs, late]);
  });

  it('never runs more tasks than its capacity, and frees a slot when a task throws', async () => {
    const slots = new FairSlots(3);
    let running = 0;
    let most = 0;
    const task = async (fail: boolean) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 2));
      running--;
      if (fail) throw new Error('refused');
    };
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) => slots.run(`org-${i % 4}`, () => task(i % 5 === 0))),
    );
    expect(most).toBe(3);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(4);
  });
});
