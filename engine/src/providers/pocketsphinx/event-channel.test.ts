import { describe, expect, it } from 'vitest';
import { EventChannel } from './event-channel.ts';

async function drain<T>(channel: AsyncIterable<T>): Promise<T[]> {
  const got: T[] = [];
  for await (const item of channel) got.push(item);
  return got;
}

describe('EventChannel', () => {
  it('hands items to a waiting reader and ends after the buffered ones', async () => {
    const channel = new EventChannel<number>(8, () => undefined);
    const reading = drain(channel);
    channel.push(1);
    channel.push(2);
    channel.end();
    channel.push(3); // after the end: ignored
    expect(await reading).toEqual([1, 2]);
  });

  it('drops the oldest items when the reader falls behind by the capacity', async () => {
    const channel = new EventChannel<number>(2, () => undefined);
    for (const n of [1, 2, 3, 4]) channel.push(n);
    channel.end();
    expect(await drain(channel)).toEqual([3, 4]);
    expect(channel.dropped).toBe(2);
  });

  it('delivers buffered items, then the failure', async () => {
    const channel = new EventChannel<number>(8, () => undefined);
    channel.push(1);
    channel.fail(new Error('boom'));
    const got: number[] = [];
    await expect(async () => {
      for await (const n of channel) got.push(n);
    }).rejects.toThrow('boom');
    expect(got).toEqual([1]);
  });

  it('close() discards what is buffered; a reader that breaks out triggers onReturn', async () => {
    let returned = 0;
    const channel = new EventChannel<number>(8, () => (returned += 1));
    channel.push(1);
    channel.push(2);
    for await (const n of channel) {
      expect(n).toBe(1);
      break;
    }
    expect(returned).toBe(1);
    expect(await drain(channel)).toEqual([]);
  });
});
