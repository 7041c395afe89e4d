import { describe, expect, it } from 'vitest';
import { PerKeyLimit } from './per-key-limit.ts';

/** A piece of work that runs until released, recording when it started. */
function gate(started: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return { work: () => (started.push(name), done), release };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('PerKeyLimit', () => {
  it('runs at most `limit` per key at once, the rest in arrival order, and other keys freely', async () => {
    const limit = new PerKeyLimit(2);
    const started: string[] = [];
    const [a1, a2, a3, a4, b1] = ['a1', 'a2', 'a3', 'a4', 'b1'].map((name) => gate(started, name));
    const runs = [
      limit.run('a', a1!.work),
      limit.run('a', a2!.work),
      limit.run('a', a3!.work),
      limit.run('a', a4!.work),
      limit.run('b', b1!.work),
    ];
    await tick();
    expect(started).toEqual(['a1', 'a2', 'b1']);
    a2!.release();
    await tick();
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3']);
    a1!.release();
    a3!.release();
    await tick();
    expect(started).toEqual(['a1', 'a2', 'b1', 'a3', 'a4']);
    a4!.release();
    b1!.release();
    await Promise.all(runs);
  });

  it('passes results and failures through, and a failure frees its place', async () => {
    const limit = new PerKeyLimit(1);
    const failed = limit.run('k', async () => {
      throw new Error('no');
    });
    const next = limit.run('k', async () => 42);
    await expect(failed).rejects.toThrow('no');
    expect(await next).toBe(42);
    expect(() => new PerKeyLimit(0)).toThrow(RangeError);
  });
});
