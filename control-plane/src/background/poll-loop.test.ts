import { describe, expect, it } from 'vitest';
import { PollLoop } from './poll-loop.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A pass that records when it ran and can be held open until released. */
function recordingPass() {
  const runs: number[] = [];
  let concurrent = 0;
  let maxConcurrent = 0;
  let hold: Promise<void> | undefined;
  let release = () => {};
  return {
    runs,
    maxConcurrent: () => maxConcurrent,
    holdNext() {
      hold = new Promise((resolve) => (release = resolve));
    },
    release: () => release(),
    pass: async () => {
      concurrent += 1;
      maxConcurrent = Math.max(maxConcurrent, concurrent);
      runs.push(Date.now());
      await hold;
      hold = undefined;
      concurrent -= 1;
    },
  };
}

describe('PollLoop', () => {
  it('runs a pass at once, then one an interval after each ends, never two at a time', async () => {
    const job = recordingPass();
    const loop = new PollLoop({ pass: job.pass, intervalMs: 20, onError: () => {} });
    loop.start();
    await expect.poll(() => job.runs.length).toBeGreaterThanOrEqual(3);
    await loop.stop();
    expect(job.maxConcurrent()).toBe(1);
    for (let i = 1; i < job.runs.length; i += 1) expect(job.runs[i]! - job.runs[i - 1]!).toBeGreaterThanOrEqual(15);
  });

  it('waits firstDelayMs before the first pass', async () => {
    const job = recordingPass();
    const loop = new PollLoop({ pass: job.pass, intervalMs: 1_000, firstDelayMs: 60, onError: () => {} });
    loop.start();
    await sleep(30);
    expect(job.runs).toEqual([]);
    await expect.poll(() => job.runs.length).toBe(1);
    await loop.stop();
  });

  it('runs a pass at once when nudged, but not while one is running', async () => {
    const job = recordingPass();
    const loop = new PollLoop({ pass: job.pass, intervalMs: 60_000, onError: () => {} });
    job.holdNext();
    loop.start();
    await expect.poll(() => job.runs.length).toBe(1);
    loop.nudge(); // the pass in flight will see the new work
    await sleep(20);
    expect(job.runs.length).toBe(1);
    job.release();
    await sleep(20);
    loop.nudge();
    await expect.poll(() => job.runs.length).toBe(2);
    await loop.stop();
    expect(job.maxConcurrent()).toBe(1);
  });

  it('carries on after a pass throws, reporting the error', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const loop = new PollLoop({
      pass: async () => {
        calls += 1;
        if (calls === 1) throw new Error('database restarting');
      },
      intervalMs: 10,
      onError: (error) => errors.push(error),
    });
    loop.start();
    await expect.poll(() => calls).toBeGreaterThanOrEqual(2);
    await loop.stop();
    expect(errors).toEqual([new Error('database restarting')]);
  });

  it('stop waits for the pass in flight, and no pass starts after it', async () => {
    const job = recordingPass();
    const loop = new PollLoop({ pass: job.pass, intervalMs: 5, onError: () => {} });
    job.holdNext();
    loop.start();
    await expect.poll(() => job.runs.length).toBe(1);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await sleep(20);
    expect(stopped).toBe(false);
    job.release();
    await stopping;
    const count = job.runs.length;
    loop.nudge();
    await sleep(30);
    expect(job.runs.length).toBe(count);
  });

  it('waits what nextDelayMs answers after a pass, never longer than the interval', async () => {
    const job = recordingPass();
    const delays = [40, -5, 60_000];
    const loop = new PollLoop({
      pass: job.pass,
      intervalMs: 200,
      nextDelayMs: () => delays.shift() ?? 60_000,
      onError: () => {},
    });
    loop.start();
    await expect.poll(() => job.runs.length, { timeout: 2_000 }).toBeGreaterThanOrEqual(4);
    await loop.stop();
    const gaps = job.runs.slice(1).map((at, i) => at - job.runs[i]!);
    // 40 ms as asked; a negative wait is none; a wait past the interval is the interval.
    expect(gaps[0]).toBeGreaterThanOrEqual(35);
    expect(gaps[0]).toBeLessThan(190);
    expect(gaps[1]).toBeLessThan(190);
    expect(gaps[2]).toBeGreaterThanOrEqual(190);
  });
});
