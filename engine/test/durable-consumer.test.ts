/**
 * Bus.consume, the durable consumer: on NATS a JetStream stream and a durable pull consumer (what is published while
 * no consumer runs waits for one; what is not acknowledged comes back), in-process a queue subscription whose `nak`
 * redelivers within the process. Each test owns its subjects and its stream, and deletes the stream afterwards.
 */
import { randomBytes } from 'node:crypto';
import { jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { connect, millis } from '@nats-io/transport-node';
import { afterEach, describe, expect, it } from 'vitest';
import {
  MemoryBus,
  namespacedBus,
  NatsBus,
  type Bus,
  type ConsumeOptions,
  type DurableMessage,
  type DurableSubscription,
} from '../src/bus/index.ts';
import { TEST_WAIT_MS, uniquePrefix, within } from './support/bus-test-kit.ts';

const natsUrl = process.env.NATS_URL ?? '';

/** A stream and durable of a test's own, over `<prefix>.*.event`. */
function durableOptions(prefix: string, overrides: Partial<ConsumeOptions> = {}): ConsumeOptions {
  const id = randomBytes(6).toString('hex');
  return {
    stream: { name: `TEST_${id}`, subjects: [`${prefix}.*.event`], maxAgeMs: 60_000 },
    durable: `test-${id}`,
    ...overrides,
  };
}

/** Pulls messages off a durable subscription into a list, answering each with `answer`, until the subscription ends. */
function collect(sub: DurableSubscription, answer: (message: DurableMessage) => void = (m) => m.ack()) {
  const got: DurableMessage[] = [];
  const arrivals: (() => void)[] = [];
  const done = (async () => {
    for await (const message of sub) {
      got.push(message);
      answer(message);
      for (const wake of arrivals.splice(0)) wake();
    }
  })();
  done.catch(() => {});
  return {
    got,
    done,
    /** Waits until `count` messages in all arrived. */
    async until(count: number, what = `${count} messages`): Promise<DurableMessage[]> {
      await within(
        (async () => {
          while (got.length < count) await new Promise<void>((resolve) => arrivals.push(resolve));
        })(),
        what,
      );
      return got;
    },
  };
}

const bodies = (messages: readonly DurableMessage[]) => messages.map((m) => m.string()).sort();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * @param open a bus for one more test
 * @param another a bus for another "process" beside `bus` (in-process: the same bus)
 */
function sharedBehaviour(
  name: string,
  open: () => Promise<Bus>,
  another: (bus: Bus) => Promise<Bus>,
  cleanup: (bus: Bus, stream: string) => Promise<void>,
) {
  describe(`Bus.consume: ${name}`, () => {
    const opened: Bus[] = [];
    const streams: string[] = [];
    const bus = async () => {
      const b = await open();
      opened.push(b);
      return b;
    };
    const options = (prefix: string, overrides?: Partial<ConsumeOptions>) => {
      const o = durableOptions(prefix, overrides);
      streams.push(o.stream.name);
      return o;
    };
    afterEach(async () => {
      const first = opened[0];
      for (const stream of streams.splice(0)) if (first) await cleanup(first, stream);
      await Promise.all(opened.splice(0).map((b) => b.close()));
    });

    it('delivers what is published on the stream subjects, once, as a first delivery', async () => {
      const b = await bus();
      const p = uniquePrefix();
      const sub = b.consume(`${p}.*.event`, options(p));
      await sub.ready;
      b.publish(`${p}.a.event`, 'one');
      b.publish(`${p}.b.event`, JSON.stringify({ n: 2 }));
      const reader = collect(sub);
      const [first, second] = await reader.until(2);
      expect(first?.subject).toBe(`${p}.a.event`);
      expect(first?.string()).toBe('one');
      expect(first?.deliveryCount).toBe(1);
      expect(first?.reply).toBeUndefined();
      expect(first?.respond('x')).toBe(false);
      expect(second?.json()).toEqual({ n: 2 });
      sub.stop();
      await within(sub.closed, 'the consumer to close');
      expect(reader.got).toHaveLength(2);
    });

    it('delivers a nak’d message again after its delay, counting the deliveries', async () => {
      const b = await bus();
      const p = uniquePrefix();
      const sub = b.consume(`${p}.*.event`, options(p));
      await sub.ready;
      const at: number[] = [];
      const reader = collect(sub, (message) => {
        at.push(Date.now());
        if (message.deliveryCount < 3) message.nak(message.deliveryCount === 1 ? 0 : 300);
        else message.ack();
      });
      b.publish(`${p}.x.event`, 'again');
      const got = await reader.until(3);
      expect(got.map((m) => [m.string(), m.deliveryCount])).toEqual([
        ['again', 1],
        ['again', 2],
        ['again', 3],
      ]);
      expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(250);
      sub.stop();
    });

    it('splits the messages between two consumers of one durable, each message to one of them', async () => {
      const b1 = await bus();
      const b2 = await another(b1);
      opened.push(b2);
      const p = uniquePrefix();
      const o = options(p, { batch: 2 });
      const subs = [b1.consume(`${p}.*.event`, o), b2.consume(`${p}.*.event`, o)];
      await Promise.all(subs.map((s) => s.ready));
      // Slow handlers, so neither consumer can take everything before the other pulls.
      const readers = subs.map((s) => collect(s, (m) => void sleep(20).then(() => m.ack())));
      const sent = Array.from({ length: 40 }, (_, i) => `m${String(i).padStart(2, '0')}`);
      for (const [i, body] of sent.entries()) (i % 2 === 0 ? b1 : b2).publish(`${p}.c${i}.event`, body);
      await within(
        (async () => {
          while (readers[0]!.got.length + readers[1]!.got.length < sent.length) await sleep(10);
        })(),
        'all messages',
      );
      await sleep(100);
      const all = [...readers[0]!.got, ...readers[1]!.got];
      expect(bodies(all)).toEqual(sent);
      expect(readers[0]!.got.length).toBeGreaterThan(0);
      expect(readers[1]!.got.length).toBeGreaterThan(0);
      for (const s of subs) s.stop();
    });

    it('ends iteration on a `break`, and refuses bad names and subjects outside the stream', async () => {
      const b = await bus();
      const p = uniquePrefix();
      const o = options(p);
      const sub = b.consume(`${p}.one.event`, o);
      await sub.ready;
      b.publish(`${p}.other.event`, 'not mine');
      b.publish(`${p}.one.event`, 'mine');
      for await (const message of sub) {
        expect(message.string()).toBe('mine');
        message.ack();
        break;
      }
      await within(sub.closed, 'the consumer to close after a break');
      expect(() => b.consume(`${p}.*.event`, { ...o, durable: 'has.dot' })).toThrow(RangeError);
      expect(() => b.consume(`${p}.*.event`, { ...o, stream: { ...o.stream, name: 'A B' } })).toThrow(RangeError);
      expect(() => b.consume(`${p}.x.other`, o)).toThrow(RangeError);
      expect(() => b.consume(`${p}.*.event`, { ...o, ackWaitMs: [1_000, 2_000], maxDeliver: 2 })).toThrow(RangeError);
      expect(() => b.consume(`${p}.*.event`, { ...o, batch: 0 })).toThrow(RangeError);
    });

    it('keeps namespaces apart: each sees its own subjects, and no stream or consumer is shared', async () => {
      const b = await bus();
      const [red, blue] = [
        namespacedBus(b, `ns.red${randomBytes(3).toString('hex')}`),
        namespacedBus(b, `ns.blue${randomBytes(3).toString('hex')}`),
      ];
      const o = durableOptions('v1.call');
      const subs = [red.consume('v1.call.*.event', o), blue.consume('v1.call.*.event', o)];
      await Promise.all(subs.map((s) => s.ready));
      const [r, bl] = subs.map((s) => collect(s));
      red.publish('v1.call.c1.event', 'red');
      blue.publish('v1.call.c2.event', 'blue');
      const [fromRed] = await r!.until(1);
      const [fromBlue] = await bl!.until(1);
      expect([fromRed?.subject, fromRed?.string(), fromRed?.deliveryCount]).toEqual(['v1.call.c1.event', 'red', 1]);
      expect([fromBlue?.subject, fromBlue?.string()]).toEqual(['v1.call.c2.event', 'blue']);
      await sleep(100);
      expect(r!.got).toHaveLength(1);
      expect(bl!.got).toHaveLength(1);
      for (const s of subs) s.stop();
      // Closing a namespace removes its streams (nothing to remove in-process), then closes the bus under it, which
      // both views share here: closed together, each still reaches the server to remove its own.
      await Promise.all([red.close(), blue.close()]);
    });
  });
}

sharedBehaviour(
  'in-process',
  async () => new MemoryBus(),
  async (bus) => bus,
  async () => {},
);

describe('Bus.consume in-process specifics', () => {
  it('keeps nothing for a consumer that is not running, and has no streams to delete', async () => {
    const bus = new MemoryBus();
    const p = uniquePrefix();
    const o = durableOptions(p);
    bus.publish(`${p}.early.event`, 'lost');
    const sub = bus.consume(`${p}.*.event`, o);
    bus.publish(`${p}.late.event`, 'kept');
    const reader = collect(sub);
    expect(bodies(await reader.until(1))).toEqual(['kept']);
    expect(await bus.deleteStream(o.stream.name)).toBe(false);
    await bus.close();
    await within(reader.done, 'the consumer to end with the bus');
  });

  it('stops delivering a message after maxDeliver deliveries, as NATS does', async () => {
    const bus = new MemoryBus();
    const p = uniquePrefix();
    const reader = collect(bus.consume(`${p}.*.event`, durableOptions(p, { maxDeliver: 2 })), (m) => m.nak());
    bus.publish(`${p}.x.event`, 'twice');
    await reader.until(2);
    await sleep(50);
    expect(reader.got.map((m) => m.deliveryCount)).toEqual([1, 2]);
    await bus.close();
  });

  it('gives a nak’d message to another consumer of the durable when its own consumer stopped', async () => {
    const bus = new MemoryBus();
    const p = uniquePrefix();
    const o = durableOptions(p);
    const first = bus.consume(`${p}.*.event`, o);
    bus.publish(`${p}.x.event`, 'hand over');
    for await (const message of first) {
      message.nak(50);
      break;
    }
    const second = collect(bus.consume(`${p}.*.event`, o));
    const [again] = await second.until(1);
    expect([again?.string(), again?.deliveryCount]).toEqual(['hand over', 2]);
    await bus.close();
  });
});

describe.skipIf(natsUrl === '')(`Bus.consume on NATS at ${natsUrl || '(NATS_URL unset)'}`, () => {
  const connectBus = () => NatsBus.connect(natsUrl, { name: 'parley-durable-test' });
  sharedBehaviour('NATS JetStream', connectBus, connectBus, async (bus, stream) => {
    await bus.deleteStream(stream).catch(() => false);
  });

  const opened: Bus[] = [];
  const streams: string[] = [];
  const open = async () => {
    const bus = await connectBus();
    opened.push(bus);
    return bus;
  };
  const options = (prefix: string, overrides?: Partial<ConsumeOptions>) => {
    const o = durableOptions(prefix, overrides);
    streams.push(o.stream.name);
    return o;
  };
  afterEach(async () => {
    const cleaner = await connectBus();
    for (const stream of streams.splice(0)) await cleaner.deleteStream(stream).catch(() => false);
    await cleaner.close();
    await Promise.all(opened.splice(0).map((bus) => bus.close()));
  });

  it('delivers what was published while no consumer ran once one starts, even from another connection', async () => {
    const p = uniquePrefix();
    const o = options(p);
    // A consumer that starts and stops again leaves the stream and the durable behind.
    const before = await open();
    const first = before.consume(`${p}.*.event`, o);
    await first.ready;
    first.stop();
    await before.close();

    const engine = await open();
    for (let i = 0; i < 5; i += 1) engine.publish(`${p}.c${i}.event`, `while away ${i}`);
    await engine.flush();

    const after = await open();
    const reader = collect(after.consume(`${p}.*.event`, o));
    expect(bodies(await reader.until(5))).toEqual([0, 1, 2, 3, 4].map((i) => `while away ${i}`));
    expect(reader.got.every((m) => m.deliveryCount === 1)).toBe(true);
  });

  it('keeps a message published right after `consume` returns, on a stream that did not exist yet', async () => {
    const bus = await open();
    const p = uniquePrefix();
    const sub = bus.consume(`${p}.*.event`, options(p));
    bus.publish(`${p}.first.event`, 'same tick');
    const [message] = await collect(sub).until(1);
    expect(message?.string()).toBe('same tick');
  });

  it('delivers an unanswered message again after the ack wait, to the next consumer of the durable', async () => {
    const p = uniquePrefix();
    const o = options(p, { ackWaitMs: 500 });
    const crashing = await open();
    const sub = crashing.consume(`${p}.*.event`, o);
    await sub.ready;
    crashing.publish(`${p}.x.event`, 'unanswered');
    for await (const message of sub) {
      expect(message.deliveryCount).toBe(1);
      break; // "crashes" without an answer
    }
    await crashing.close();

    const started = Date.now();
    const next = await open();
    const [again] = await collect(next.consume(`${p}.*.event`, o)).until(1, 'the redelivery');
    expect([again?.string(), again?.deliveryCount]).toEqual(['unanswered', 2]);
    expect(Date.now() - started).toBeLessThan(TEST_WAIT_MS);
  });

  it('does not deliver a nak’d message again before its delay', async () => {
    const bus = await open();
    const p = uniquePrefix();
    const sub = bus.consume(`${p}.*.event`, options(p));
    await sub.ready;
    const at: number[] = [];
    const reader = collect(sub, (message) => {
      at.push(Date.now());
      if (message.deliveryCount === 1) message.nak(1_000);
      else message.ack();
    });
    bus.publish(`${p}.x.event`, 'later');
    await reader.until(2);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(900);
  });

  it('creates the stream on disk with limits retention, updates it and the consumer when the options change', async () => {
    const p = uniquePrefix();
    const o = options(p, { ackWaitMs: [1_000, 5_000], maxDeliver: 10, maxAckPending: 50 });
    const bus = await open();
    await bus.consume(`${p}.*.event`, o).ready;
    const changed: ConsumeOptions = {
      ...o,
      stream: { ...o.stream, maxAgeMs: 120_000 },
      ackWaitMs: 2_000,
      maxDeliver: 3,
    };
    await bus.consume(`${p}.*.event`, changed).ready;
    // A second start with the same options changes nothing and succeeds.
    await bus.consume(`${p}.*.event`, changed).ready;

    const nc = await connect({ servers: natsUrl });
    try {
      const jsm = await jetstreamManager(nc);
      const stream = await jsm.streams.info(o.stream.name);
      expect(stream.config).toMatchObject({
        subjects: [`${p}.*.event`],
        storage: StorageType.File,
        retention: RetentionPolicy.Limits,
      });
      expect(millis(stream.config.max_age)).toBe(120_000);
      const consumer = await jsm.consumers.info(o.stream.name, o.durable);
      expect(millis(consumer.config.ack_wait ?? 0)).toBe(2_000);
      expect(consumer.config).toMatchObject({
        max_deliver: 3,
        max_ack_pending: 50,
        filter_subject: `${p}.*.event`,
        durable_name: o.durable,
      });
    } finally {
      await nc.close();
    }
    expect(await bus.deleteStream(o.stream.name)).toBe(true);
    expect(await bus.deleteStream(o.stream.name)).toBe(false);
  });

  it('fails `ready` and the iteration with a BusError when the stream cannot be made', async () => {
    const bus = await open();
    const p = uniquePrefix();
    const o = options(p);
    await bus.consume(`${p}.*.event`, o).ready;
    // Another stream over the same subjects overlaps the first one, which the server refuses.
    const clash = bus.consume(`${p}.*.event`, { ...o, stream: { ...o.stream, name: `${o.stream.name}_CLASH` } });
    await expect(clash.ready).rejects.toMatchObject({ name: 'BusError', code: 'internal' });
    await expect(collect(clash).done).rejects.toMatchObject({ name: 'BusError' });
    await within(clash.closed, 'the failed consumer to close');
  });

  it('keeps core publish, subscribe and request working beside a durable consumer on one connection', async () => {
    const bus = await open();
    const p = uniquePrefix();
    const durable = collect(bus.consume(`${p}.*.event`, options(p)));
    const plain = bus.subscribe(`${p}.*.event`);
    const responder = bus.subscribe(`${p}.ask`);
    void (async () => {
      for await (const m of responder) m.respond(`re: ${m.string()}`);
    })();
    bus.publish(`${p}.x.event`, 'both');
    const [fromDurable] = await durable.until(1);
    for await (const m of plain) {
      expect(m.string()).toBe('both');
      break;
    }
    expect(fromDurable?.string()).toBe('both');
    expect((await bus.request(`${p}.ask`, 'hi', { timeoutMs: 1_000 })).string()).toBe('re: hi');
  });

  it('deletes a namespace’s streams when the namespace closes', async () => {
    const inner = await open();
    const namespace = `test.${randomBytes(5).toString('hex')}`;
    const ns = namespacedBus(inner, namespace);
    const o = durableOptions('v1.call');
    await ns.consume('v1.call.*.event', o).ready;
    const serverName = `${namespace.replace('.', '_')}_${o.stream.name}`;
    const nc = await connect({ servers: natsUrl });
    try {
      const jsm = await jetstreamManager(nc);
      expect((await jsm.streams.info(serverName)).config.subjects).toEqual([`${namespace}.v1.call.*.event`]);
      expect(
        (await jsm.consumers.info(serverName, `${namespace.replace('.', '_')}_${o.durable}`)).config.durable_name,
      ).toBeDefined();
      await ns.close();
      await expect(jsm.streams.info(serverName)).rejects.toThrow();
    } finally {
      await nc.close();
    }
  });
});
