import { afterEach, describe, expect, it, vi } from 'vitest';
import { PacedOutput } from './paced-output.ts';
import { PACING_MAX_CATCH_UP_FRAMES, PacingClock, type ClockTimers } from './pacing-clock.ts';

/** Virtual time: timers fire only when the test moves time on, each at its due instant. */
class FakeTimers implements ClockTimers {
  time = 1_000;
  #pending: { due: number; callback: () => void; handle: number }[] = [];
  #nextHandle = 1;
  readonly delays: number[] = [];

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, delayMs: number): unknown {
    this.delays.push(delayMs);
    const handle = this.#nextHandle++;
    this.#pending.push({ due: this.time + delayMs, callback, handle });
    return handle;
  }

  clearTimeout(handle: unknown): void {
    this.#pending = this.#pending.filter((t) => t.handle !== handle);
  }

  get pending(): number {
    return this.#pending.length;
  }

  /** Moves time to `time + ms`, firing each timer at its due instant, plus `lateMs` of timer lateness each. */
  advance(ms: number, lateMs = 0): void {
    const end = this.time + ms;
    for (;;) {
      this.#pending.sort((a, b) => a.due - b.due);
      const next = this.#pending[0];
      if (!next || next.due + lateMs > end) break;
      this.#pending.shift();
      this.time = Math.max(this.time, next.due + lateMs);
      next.callback();
    }
    this.time = end;
  }

  /** The event loop was blocked for `ms`: time passes, nothing fires until the stall ends. */
  stall(ms: number): void {
    this.time += ms;
    this.advance(0);
  }
}

function recorder(clock?: PacingClock, capacityFrames?: number) {
  const sent: number[] = [];
  const marks: string[] = [];
  const output = new PacedOutput<number>({
    send: (frame) => sent.push(frame),
    onMark: (name, outcome) => marks.push(`${name}:${outcome}`),
    capacityFrames,
  });
  clock?.attach(output);
  return { output, sent, marks };
}

describe('PacingClock (fake time)', () => {
  it('hands every attached output one frame per 20 ms tick, from one timer, and nothing when a queue is empty', () => {
    const timers = new FakeTimers();
    const clock = new PacingClock({ timers });
    const a = recorder(clock);
    const b = recorder(clock);
    for (let i = 0; i < 5; i++) a.output.enqueue(i);
    b.output.enqueue(100);
    timers.advance(19);
    expect(a.sent).toEqual([]);
    timers.advance(1);
    expect([a.sent, b.sent]).toEqual([[0], [100]]);
    timers.advance(60);
    expect([a.sent, b.sent]).toEqual([[0, 1, 2, 3], [100]]);
    expect(timers.pending).toBe(1);
    expect(clock.ticks).toBe(4);
  });

  it('does not drift when every timer fires late: ticks stay on the grid of the start time', () => {
    const timers = new FakeTimers();
    const clock = new PacingClock({ timers });
    const { output, sent } = recorder(clock, 1000);
    for (let i = 0; i < 1000; i++) output.enqueue(i);
    // Every timer fires 3 ms late; a clock that scheduled "20 ms after the last tick" would lose 3 ms per tick.
    timers.advance(10_000, 3);
    expect(sent.length).toBe(500 - 1);
    expect(clock.slipped).toBe(0);
    // The delays asked for make up for the lateness: 20 ms first, then 17 ms.
    expect(timers.delays.slice(0, 3)).toEqual([20, 17, 17]);
  });

  it(`catches up at most ${PACING_MAX_CATCH_UP_FRAMES} frames after a stall, then slips the schedule`, () => {
    const timers = new FakeTimers();
    const clock = new PacingClock({ timers });
    const { output, sent } = recorder(clock);
    for (let i = 0; i < 50; i++) output.enqueue(i);
    timers.advance(40);
    expect(sent.length).toBe(2);
    timers.stall(200);
    // Ten ticks were missed; three go out at once, the other seven are skipped, and no frame is lost.
    expect(sent.length).toBe(2 + PACING_MAX_CATCH_UP_FRAMES);
    expect(clock.slipped).toBe(10 - PACING_MAX_CATCH_UP_FRAMES);
    timers.advance(100);
    expect(sent).toEqual(Array.from({ length: 2 + PACING_MAX_CATCH_UP_FRAMES + 5 }, (_, i) => i));
  });

  it('catches up fully after a short stall', () => {
    const timers = new FakeTimers();
    const clock = new PacingClock({ timers });
    const { output, sent } = recorder(clock);
    for (let i = 0; i < 50; i++) output.enqueue(i);
    timers.stall(50);
    expect(sent.length).toBe(2);
    timers.advance(10);
    expect(sent.length).toBe(3);
    expect(clock.slipped).toBe(0);
  });

  it('runs its timer only while outputs are attached, and lets closed outputs go', () => {
    const timers = new FakeTimers();
    const clock = new PacingClock({ timers });
    expect(clock.running).toBe(false);
    const a = recorder(clock);
    const b = recorder(clock);
    expect(clock.running).toBe(true);
    clock.detach(a.output);
    b.output.close();
    timers.advance(20);
    expect(clock.size).toBe(0);
    expect(clock.running).toBe(false);
    expect(timers.pending).toBe(0);
  });

  it('keeps one timer on the same grid when an output attaches from inside a tick, even after the last one left', () => {
    const timers = new FakeTimers();
    const clock = new PacingClock({ timers });
    const late = recorder();
    const first = new PacedOutput<number>({
      send: () => {},
      onMark: () => {
        clock.detach(first);
        clock.attach(late.output);
      },
    });
    clock.attach(first);
    first.enqueue(0);
    first.mark('handover');
    late.output.enqueue(1);
    late.output.enqueue(2);
    timers.advance(20);
    expect(timers.pending).toBe(1);
    timers.advance(40);
    expect(late.sent).toEqual([1, 2]);
    expect(timers.pending).toBe(1);
  });

  it('keeps ticking the others when one output’s callback throws, and closes that one', () => {
    const timers = new FakeTimers();
    const clock = new PacingClock({ timers });
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const broken = new PacedOutput<number>({
      send: () => {},
      onMark: () => {
        throw new Error('bug in a mark handler');
      },
    });
    clock.attach(broken);
    broken.mark('m');
    const healthy = recorder(clock);
    healthy.output.enqueue(1);
    timers.advance(20);
    expect(healthy.sent).toEqual([1]);
    expect(broken.closed).toBe(true);
    expect(warn).toHaveBeenCalledOnce();
    expect(clock.size).toBe(1);
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });
});

describe('PacedOutput', () => {
  it('reports a mark when the last frame queued before it has been handed out', () => {
    const { output, sent, marks } = recorder();
    output.enqueue(1);
    output.enqueue(2);
    output.mark('turn-1');
    output.enqueue(3);
    output.mark('turn-2');
    output.tick();
    expect(marks).toEqual([]);
    output.tick();
    expect(sent).toEqual([1, 2]);
    expect(marks).toEqual(['turn-1:played']);
    output.tick();
    expect(marks).toEqual(['turn-1:played', 'turn-2:played']);
    expect(output.played).toBe(3);
  });

  it('reports a mark made on an empty queue on the next tick', () => {
    const { output, marks } = recorder();
    output.mark('greeting');
    expect(marks).toEqual([]);
    output.tick();
    expect(marks).toEqual(['greeting:played']);
  });

  it('drops everything queued at once on clear (barge-in) and reports pending marks as cleared, synchronously', () => {
    const { output, sent, marks } = recorder();
    for (let i = 0; i < 10; i++) output.enqueue(i);
    output.mark('a');
    output.tick();
    expect(output.clear()).toBe(9);
    expect(marks).toEqual(['a:cleared']);
    output.tick();
    expect(sent).toEqual([0]);
    // What comes after the clear plays normally.
    output.enqueue(42);
    output.mark('b');
    output.tick();
    expect(sent).toEqual([0, 42]);
    expect(marks).toEqual(['a:cleared', 'b:played']);
  });

  it('drops the oldest frame when full, and a mark behind dropped frames still completes', () => {
    const { output, sent, marks } = recorder(undefined, 3);
    output.enqueue(1);
    output.mark('early');
    for (let i = 2; i <= 5; i++) output.enqueue(i);
    expect(output.dropped).toBe(2);
    expect(output.queued).toBe(3);
    output.tick();
    expect(sent).toEqual([3]);
    expect(marks).toEqual(['early:played']);
  });

  it('lets a producer wait for room instead of losing audio', async () => {
    const { output } = recorder(undefined, 4);
    for (let i = 0; i < 4; i++) output.enqueue(i);
    let resolved = false;
    const waiting = output.waitForRoom(2).then(() => (resolved = true));
    output.tick();
    await Promise.resolve();
    expect(resolved).toBe(false);
    output.tick();
    await waiting;
    expect(resolved).toBe(true);
    await expect(output.waitForRoom(1)).resolves.toBeUndefined();
  });

  it('rejects waiters on abort and on close, and ignores frames after close', async () => {
    const { output, sent, marks } = recorder(undefined, 1);
    output.enqueue(1);
    const controller = new AbortController();
    const aborted = output.waitForRoom(1, controller.signal);
    controller.abort(new Error('turn cancelled'));
    await expect(aborted).rejects.toThrow('turn cancelled');
    const closing = output.waitForRoom(1);
    output.mark('m');
    output.close();
    await expect(closing).rejects.toMatchObject({ code: 'output_closed' });
    expect(marks).toEqual(['m:cleared']);
    output.enqueue(2);
    output.tick();
    expect(sent).toEqual([]);
    await expect(output.waitForRoom()).rejects.toMatchObject({ code: 'output_closed' });
  });

  it('closes itself when send throws and nobody handles it; reports to onError otherwise', () => {
    const failing = new PacedOutput<number>({
      send: () => {
        throw new Error('socket gone');
      },
    });
    failing.enqueue(1);
    failing.tick();
    expect(failing.closed).toBe(true);
    const errors: unknown[] = [];
    const handled = new PacedOutput<number>({
      send: () => {
        throw new Error('once');
      },
      onError: (e) => errors.push(e),
    });
    handled.enqueue(1);
    handled.tick();
    expect(handled.closed).toBe(false);
    expect(errors).toHaveLength(1);
  });
});

describe('PacingClock (real time)', () => {
  it('ticks every 20 ms on average over a second, with bounded jitter', async () => {
    const clock = new PacingClock();
    const times: number[] = [];
    const output = new PacedOutput<number>({ send: () => times.push(performance.now()) });
    for (let i = 0; i < 50; i++) output.enqueue(i);
    const start = performance.now();
    clock.attach(output);
    await new Promise((resolve) => setTimeout(resolve, 1_050));
    clock.close();
    expect(times.length).toBeGreaterThanOrEqual(48);
    const spacing = (times.at(-1)! - times[0]!) / (times.length - 1);
    // Generous bounds for a busy two-core CI machine; a clock that drifted by its timer lateness would be ~21+ ms.
    expect(spacing).toBeGreaterThan(19);
    expect(spacing).toBeLessThan(21);
    const lateness = times.map((t, i) => t - (start + (i + 1 + clock.slipped) * 20)).sort((a, b) => a - b);
    expect(lateness[0]!).toBeGreaterThan(-1);
    expect(lateness[Math.floor(lateness.length / 2)]!).toBeLessThan(5);
  });
});
