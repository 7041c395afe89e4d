import { describe, expect, it } from 'vitest';
import type { BusMessage, Subscription } from './bus.ts';
import { SUBSCRIPTION_BUFFER_MESSAGES } from './buffered-subscription.ts';
import { BusError } from './errors.ts';
import { connectBus } from './index.ts';
import { MEMORY_BUS_MAX_PAYLOAD_BYTES, MemoryBus } from './memory-bus.ts';

/** Everything the subscription holds once it stops taking messages. */
async function drainAndRead(sub: Subscription): Promise<BusMessage[]> {
  await sub.drain();
  const messages: BusMessage[] = [];
  for await (const message of sub) messages.push(message);
  return messages;
}

describe('MemoryBus', () => {
  it('describes itself as in-process and is what connectBus gives without a URL', async () => {
    const bus = await connectBus(undefined, 'parley-test');
    expect(bus).toBeInstanceOf(MemoryBus);
    expect(bus.description).toBe('in-process');
    await bus.close();
  });

  it('never runs a consumer inside the publisher call', async () => {
    const bus = new MemoryBus();
    const sub = bus.subscribe('t.x');
    let consumed = false;
    const consumer = (async () => {
      for await (const message of sub) {
        consumed = message.string() === 'now';
        break;
      }
    })();
    await Promise.resolve(); // let the consumer reach its await
    bus.publish('t.x', 'now');
    expect(consumed).toBe(false);
    await consumer;
    expect(consumed).toBe(true);
    await bus.close();
  });

  it('drops the oldest message of a full subscription buffer and counts each drop', async () => {
    const bus = new MemoryBus();
    const sub = bus.subscribe('t.flood');
    for (let i = 0; i <= SUBSCRIPTION_BUFFER_MESSAGES; i++) bus.publish('t.flood', String(i));
    expect(sub.dropped).toBe(1);
    bus.publish('t.flood', 'newest');
    expect(sub.dropped).toBe(2);
    const kept = (await drainAndRead(sub)).map((m) => m.string());
    expect(kept).toHaveLength(SUBSCRIPTION_BUFFER_MESSAGES);
    expect(kept[0]).toBe('2');
    expect(kept.at(-1)).toBe('newest');
    await bus.close();
  });

  it('spreads a queue group evenly, member by member', async () => {
    const bus = new MemoryBus();
    const members = [1, 2, 3, 4].map(() => bus.subscribe('t.work', { queue: 'q' }));
    for (let i = 0; i < 100; i++) bus.publish('t.work', String(i));
    const counts = await Promise.all(members.map(async (m) => (await drainAndRead(m)).length));
    expect(counts).toEqual([25, 25, 25, 25]);
    await bus.close();
  });

  it('leaves a queue group when a member reaches max, and the others take over', async () => {
    const bus = new MemoryBus();
    const brief = bus.subscribe('t.work', { queue: 'q', max: 1 });
    const steady = bus.subscribe('t.work', { queue: 'q' });
    for (let i = 0; i < 10; i++) bus.publish('t.work', String(i));
    expect((await drainAndRead(brief)).length).toBe(1);
    expect((await drainAndRead(steady)).length).toBe(9);
    await bus.close();
  });

  it('keeps a published payload as it was when the publisher reuses its buffer', async () => {
    const bus = new MemoryBus();
    const sub = bus.subscribe('t.frame');
    const frame = new Uint8Array([1, 2, 3]);
    bus.publish('t.frame', frame);
    frame.fill(9);
    const [message] = await drainAndRead(sub);
    expect(Array.from(message?.data ?? [])).toEqual([1, 2, 3]);
    await bus.close();
  });

  it('refuses a payload above the NATS default max_payload with payload_too_large', async () => {
    const bus = new MemoryBus();
    const big = new Uint8Array(MEMORY_BUS_MAX_PAYLOAD_BYTES + 1);
    expect(() => bus.publish('t.big', big)).toThrow(expect.objectContaining({ code: 'payload_too_large' }));
    expect(() => bus.publish('t.ok', big.subarray(1))).not.toThrow();
    await bus.close();
  });

  it('refuses nonsensical options with RangeError', async () => {
    const bus = new MemoryBus();
    expect(() => bus.subscribe('t.x', { max: 0 })).toThrow(RangeError);
    await expect(bus.request('t.x', 'x', { timeoutMs: 0 })).rejects.toThrow(RangeError);
    await expect(bus.request('t.x', 'x', { timeoutMs: Number.POSITIVE_INFINITY })).rejects.toThrow(RangeError);
    await bus.close();
  });

  it('does not route between two in-process buses', async () => {
    const a = new MemoryBus();
    const b = new MemoryBus();
    b.subscribe('t.x');
    const err: unknown = await a.request('t.x', 'x', { timeoutMs: 1_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BusError);
    expect((err as BusError).code).toBe('no_responders');
    await Promise.all([a.close(), b.close()]);
  });
});
