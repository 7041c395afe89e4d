import { describe, expect, it } from 'vitest';
import { Channel, ChannelOverflowError } from './channel.ts';

async function drain<T>(channel: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of channel) out.push(item);
  return out;
}

describe('Channel', () => {
  it('delivers in order to a waiting reader and to a late one', async () => {
    const channel = new Channel<number>(10, 'fail');
    const reading = drain(channel);
    channel.push(1);
    channel.push(2);
    channel.end();
    expect(await reading).toEqual([1, 2]);
    const late = new Channel<number>(10, 'fail');
    late.push(3);
    late.end();
    expect(await drain(late)).toEqual([3]);
  });

  it('drops the oldest when full under drop-oldest, and counts', async () => {
    const channel = new Channel<number>(3, 'drop-oldest');
    for (let i = 1; i <= 5; i += 1) channel.push(i);
    channel.end();
    expect(await drain(channel)).toEqual([3, 4, 5]);
    expect(channel.dropped).toBe(2);
  });

  it('fails the reader when full under fail, after the buffered items', async () => {
    const channel = new Channel<number>(2, 'fail');
    channel.push(1);
    channel.push(2);
    channel.push(3);
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const n of channel) seen.push(n);
      })(),
    ).rejects.toBeInstanceOf(ChannelOverflowError);
    expect(seen).toEqual([1, 2]);
  });

  it('passes a failure to a waiting reader, and ignores pushes after the end', async () => {
    const channel = new Channel<string>(2, 'fail');
    const reading = drain(channel);
    channel.fail(new Error('worker lost'));
    channel.push('late');
    await expect(reading).rejects.toThrow('worker lost');
  });

  it('clears what is buffered without ending', async () => {
    const channel = new Channel<number>(5, 'drop-oldest');
    channel.push(1);
    channel.push(2);
    channel.clear();
    channel.push(3);
    channel.end();
    expect(await drain(channel)).toEqual([3]);
  });

  it('stops when the reader breaks out', async () => {
    const channel = new Channel<number>(5, 'fail');
    channel.push(1);
    channel.push(2);
    for await (const n of channel) if (n === 1) break;
    expect(channel.ended).toBe(true);
  });

  it('under drop-oldest with an evictable rule, drops the oldest evictable item and keeps the others past capacity', async () => {
    const channel = new Channel<{ final: boolean; n: number }>(2, 'drop-oldest', { evictable: (item) => !item.final });
    channel.push({ final: false, n: 1 });
    channel.push({ final: true, n: 2 });
    channel.push({ final: true, n: 3 });
    channel.push({ final: true, n: 4 });
    expect(channel.dropped).toBe(1);
    channel.end();
    expect(await drain(channel)).toEqual([2, 3, 4].map((n) => ({ final: true, n })));
  });

  it('drops everything on discard and ends a waiting reader', async () => {
    const channel = new Channel<number>(4, 'fail');
    const reading = drain(channel);
    await Promise.resolve();
    channel.discard();
    channel.push(9);
    expect(await reading).toEqual([]);
    const buffered = new Channel<number>(4, 'fail');
    buffered.push(1);
    buffered.discard();
    expect(await drain(buffered)).toEqual([]);
  });

  it('tells the producer once when the reader leaves early, and not when it read to the end', async () => {
    let returned = 0;
    const channel = new Channel<number>(4, 'fail', { onReturn: () => (returned += 1) });
    channel.push(1);
    channel.push(2);
    for await (const item of channel) {
      expect(item).toBe(1);
      break;
    }
    expect(returned).toBe(1);
    expect(channel.ended).toBe(true);
    expect(await drain(channel)).toEqual([]);
    const finished = new Channel<number>(4, 'fail', { onReturn: () => (returned += 1) });
    finished.push(1);
    finished.end();
    await drain(finished);
    expect(returned).toBe(1);
  });
});
