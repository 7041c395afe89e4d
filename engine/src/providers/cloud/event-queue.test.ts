import { describe, expect, it } from 'vitest';
import { EventQueue } from './event-queue.ts';

async function drain<T>(queue: EventQueue<T>): Promise<{ items: T[]; error?: unknown }> {
  const items: T[] = [];
  try {
    for await (const item of queue) items.push(item);
  } catch (error) {
    return { items, error };
  }
  return { items };
}

describe('EventQueue', () => {
  it('hands buffered items to the reader before ending', async () => {
    const queue = new EventQueue<number>({ capacity: 4 });
    queue.push(1);
    queue.push(2);
    queue.end();
    queue.push(3);
    expect(await drain(queue)).toEqual({ items: [1, 2] });
  });

  it('wakes a waiting reader on push and on end', async () => {
    const queue = new EventQueue<string>({ capacity: 4 });
    const reading = drain(queue);
    await Promise.resolve();
    queue.push('a');
    queue.end();
    expect(await reading).toEqual({ items: ['a'] });
  });

  it('delivers buffered items, then the failure', async () => {
    const queue = new EventQueue<number>({ capacity: 4 });
    queue.push(1);
    queue.fail(new Error('gone'));
    const { items, error } = await drain(queue);
    expect(items).toEqual([1]);
    expect(error).toBeInstanceOf(Error);
  });

  it('evicts the oldest evictable item when full, and keeps the others past capacity', () => {
    const queue = new EventQueue<{ final: boolean; n: number }>({ capacity: 2, evictable: (item) => !item.final });
    queue.push({ final: false, n: 1 });
    queue.push({ final: true, n: 2 });
    queue.push({ final: true, n: 3 });
    queue.push({ final: true, n: 4 });
    expect(queue.dropped).toBe(1);
    queue.end();
    return expect(drain(queue)).resolves.toEqual({ items: [2, 3, 4].map((n) => ({ final: true, n })) });
  });

  it('drops everything on discard, and tells the owner when the reader leaves early', async () => {
    let returned = 0;
    const queue = new EventQueue<number>({ capacity: 4, onReturn: () => (returned += 1) });
    queue.push(1);
    queue.push(2);
    for await (const item of queue) {
      expect(item).toBe(1);
      break;
    }
    expect(returned).toBe(1);
    expect(queue.open).toBe(false);
    expect(await drain(queue)).toEqual({ items: [] });
  });
});
