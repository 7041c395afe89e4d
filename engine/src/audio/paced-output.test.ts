import { describe, expect, it } from 'vitest';
import { PacedOutput } from './paced-output.ts';

describe('PacedOutput', () => {
  it('sends one queued frame per tick and reports marks once their frames went out', () => {
    const sent: number[] = [];
    const marks: string[] = [];
    const output = new PacedOutput<number>({
      send: (f) => sent.push(f),
      onMark: (name, outcome) => marks.push(`${name}:${outcome}`),
    });
    output.enqueue(1);
    output.enqueue(2);
    output.mark('a');
    expect(sent).toEqual([]);
    output.tick();
    expect(sent).toEqual([1]);
    expect(marks).toEqual([]);
    output.tick();
    expect(sent).toEqual([1, 2]);
    expect(marks).toEqual(['a:played']);
  });

  it('with startImmediately, sends the first frame after a quiet tick at once, then paces the rest', () => {
    const sent: number[] = [];
    const output = new PacedOutput<number>({ send: (f) => sent.push(f), startImmediately: true });
    output.tick(); // quiet line
    output.enqueue(1);
    expect(sent).toEqual([1]);
    output.enqueue(2);
    output.enqueue(3);
    expect(sent).toEqual([1]);
    output.tick();
    expect(sent).toEqual([1, 2]);
    // While audio flows, new frames wait for their tick.
    output.tick();
    output.enqueue(4);
    expect(sent).toEqual([1, 2, 3]);
    output.tick();
    expect(sent).toEqual([1, 2, 3, 4]);
  });

  it('without startImmediately, a first frame waits for the tick', () => {
    const sent: number[] = [];
    const output = new PacedOutput<number>({ send: (f) => sent.push(f) });
    output.tick();
    output.enqueue(1);
    expect(sent).toEqual([]);
    output.tick();
    expect(sent).toEqual([1]);
  });
  it('pauses: holds the queue, puts back the frames sent since the last mark, and resumes from them', () => {
    const sent: number[] = [];
    const marks: string[] = [];
    const output = new PacedOutput<number>({
      send: (f) => sent.push(f),
      onMark: (name, outcome) => marks.push(`${name}:${outcome}`),
      rewindFrames: 3,
      startImmediately: true,
    });
    for (const f of [1, 2]) output.enqueue(f);
    output.mark('a');
    for (const f of [3, 4, 5, 6, 7, 8]) output.enqueue(f);
    output.mark('b');
    for (let i = 0; i < 5; i += 1) output.tick();
    expect(sent).toEqual([1, 2, 3, 4, 5, 6]);
    expect(marks).toEqual(['a:played']);
    // The three frames sent last go back; none before mark a could.
    expect(output.pause()).toEqual([4, 5, 6]);
    expect(output.paused).toBe(true);
    expect(output.queued).toBe(5);
    output.tick();
    output.enqueue(9); // a paused output sends nothing at once either
    expect(sent).toEqual([1, 2, 3, 4, 5, 6]);
    output.resume();
    for (let i = 0; i < 5; i += 1) output.tick();
    expect(sent).toEqual([1, 2, 3, 4, 5, 6, 4, 5, 6, 7, 8]);
    expect(marks).toEqual(['a:played', 'b:played']);
    output.tick();
    expect(sent.at(-1)).toBe(9);
  });

  it('puts back nothing sent before a mark, and a clear ends a pause', () => {
    const sent: number[] = [];
    const output = new PacedOutput<number>({ send: (f) => sent.push(f), rewindFrames: 5 });
    output.enqueue(1);
    output.enqueue(2);
    output.mark('a');
    output.tick();
    output.tick();
    expect(output.pause()).toEqual([]);
    output.enqueue(3);
    output.tick();
    expect(sent).toEqual([1, 2]);
    expect(output.clear()).toBe(1);
    expect(output.paused).toBe(false);
    output.enqueue(4);
    output.tick();
    expect(sent).toEqual([1, 2, 4]);
  });
});
