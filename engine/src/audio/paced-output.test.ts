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
});
