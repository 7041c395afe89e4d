/**
 * One contract, two buses: code written against `Bus` must behave the same embedded (MemoryBus) and scale-out
 * (NatsBus over a real NATS server at NATS_URL). Each test owns a random subject prefix, so several files and runs
 * can share one server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  MemoryBus,
  namespacedBus,
  NatsBus,
  SUBSCRIPTION_BUFFER_MESSAGES,
  type Bus,
  type BusMessage,
} from '../src/bus/index.ts';
import {
  drainAndRead,
  readAll,
  rejection,
  serve,
  SHORT_TIMEOUT_MS,
  take,
  TEST_WAIT_MS,
  thrown,
  uniquePrefix,
  within,
} from './support/bus-test-kit.ts';

type BusFactory = () => Promise<Bus>;

function busContract(name: string, factory: BusFactory): void {
  describe(`Bus contract: ${name}`, () => {
    const buses: Bus[] = [];
    const open = async (): Promise<Bus> => {
      const bus = await factory();
      buses.push(bus);
      return bus;
    };
    afterEach(async () => {
      await Promise.all(buses.splice(0).map((bus) => bus.close()));
    });

    it('delivers a published message to a subscriber', async () => {
      const bus = await open();
      const p = uniquePrefix();
      const sub = bus.subscribe(`${p}.greeting`);
      bus.publish(`${p}.greeting`, 'hello');
      const [message] = await take(sub, 1);
      expect(message?.subject).toBe(`${p}.greeting`);
      expect(message?.string()).toBe('hello');
      expect(message?.reply).toBeUndefined();
      expect(message?.respond('x')).toBe(false);
    });

    it('matches * against exactly one token', async () => {
      const bus = await open();
      const p = uniquePrefix();
      const sub = bus.subscribe(`${p}.*.x`);
      for (const s of ['a.x', 'a.y', 'a.b.x', 'b.x', 'x', 'end.x']) bus.publish(`${p}.${s}`);
      const subjects = (await take(sub, 3)).map((m) => m.subject);
      expect(subjects).toEqual([`${p}.a.x`, `${p}.b.x`, `${p}.end.x`]);
    });

    it('matches > against one or more trailing tokens', async () => {
      const bus = await open();
      const p = uniquePrefix();
      const sub = bus.subscribe(`${p}.calls.>`);
      for (const s of ['calls', 'calls.a', 'other.a', 'calls.a.b.c', 'calls.end']) bus.publish(`${p}.${s}`);
      const subjects = (await take(sub, 3)).map((m) => m.subject);
      expect(subjects).toEqual([`${p}.calls.a`, `${p}.calls.a.b.c`, `${p}.calls.end`]);
    });

    it('gives each message to exactly one member of a queue group, and every member some', async () => {
      const bus = await open();
      const p = uniquePrefix();
      const members = [1, 2, 3].map(() => bus.subscribe(`${p}.work`, { queue: 'workers' }));
      for (let i = 0; i < 100; i++) bus.publish(`${p}.work`, String(i));
      const received = await drainAndRead(bus, members);
      const all = received.flat().map((m) => Number(m.string()));
      expect(all).toHaveLength(100);
      expect(new Set(all).size).toBe(100);
      for (const got of received) expect(got.length).toBeGreaterThan(0);
    });

    it('serves several queue groups and plain subscribers on one subject independently', async () => {
      const bus = await open();
      const p = uniquePrefix();
      const groupA = [1, 2].map(() => bus.subscribe(`${p}.job`, { queue: 'a' }));
      const groupB = [1, 2, 3].map(() => bus.subscribe(`${p}.job`, { queue: 'b' }));
      const plain = [1, 2].map(() => bus.subscribe(`${p}.job`));
      const wildcardInA = bus.subscribe(`${p}.*`, { queue: 'a' });
      for (let i = 0; i < 30; i++) bus.publish(`${p}.job`, String(i));
      const [a, b, c] = await Promise.all([
        drainAndRead(bus, [...groupA, wildcardInA]),
        drainAndRead(bus, groupB),
        drainAndRead(bus, plain),
      ]);
      const sorted = (got: BusMessage[][] | undefined) =>
        (got ?? [])
          .flat()
          .map((m) => Number(m.string()))
          .sort((x, y) => x - y);
      const everyOne = Array.from({ length: 30 }, (_, i) => i);
      expect(sorted(a)).toEqual(everyOne);
      expect(sorted(b)).toEqual(everyOne);
      for (const got of c ?? []) expect(got.map((m) => Number(m.string()))).toEqual(everyOne);
    });

    it('answers a request through the responder', async () => {
      const bus = await open();
      const p = uniquePrefix();
      serve(bus.subscribe(`${p}.upper`, { queue: 'svc' }), (m) =>
        JSON.stringify({ text: m.json<{ text: string }>().text.toUpperCase() }),
      );
      const answer = await bus.request(`${p}.upper`, JSON.stringify({ text: 'hi' }), { timeoutMs: TEST_WAIT_MS });
      expect(answer.json()).toEqual({ text: 'HI' });
    });

    it('rejects a request nobody answers with timeout', async () => {
      const bus = await open();
      const p = uniquePrefix();
      const silent = bus.subscribe(`${p}.silent`);
      const started = Date.now();
      const err = await rejection(bus.request(`${p}.silent`, 'x', { timeoutMs: SHORT_TIMEOUT_MS }));
      expect(err.code).toBe('timeout');
      expect(err.retryable).toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(SHORT_TIMEOUT_MS - 10);
      silent.unsubscribe();
    });

    it('rejects a request with no subscriber at once with no_responders', async () => {
      const bus = await open();
      const started = Date.now();
      const err = await rejection(bus.request(`${uniquePrefix()}.nobody`, 'x', { timeoutMs: TEST_WAIT_MS }));
      expect(err.code).toBe('no_responders');
      expect(err.retryable).toBe(true);
      expect(Date.now() - started).toBeLessThan(TEST_WAIT_MS / 2);
    });

    it('ends a subscription by itself after max messages', async () => {
      const bus = await open();
      const p = uniquePrefix();
      const sub = bus.subscribe(`${p}.few`, { max: 3 });
      for (let i = 0; i < 5; i++) bus.publish(`${p}.few`, String(i));
      const got = await readAll(sub);
      expect(got.map((m) => m.string())).toEqual(['0', '1', '2']);
      await within(sub.closed, 'closed');
    });

    it('ends iteration on unsubscribe and discards what was not read', async () => {
      const bus = await open();
      const p = uniquePrefix();
      const waiting = bus.subscribe(`${p}.a`);
      const reading = readAll(waiting);
      waiting.unsubscribe();
      expect(await reading).toEqual([]);
      await within(waiting.closed, 'closed');

      const buffered = bus.subscribe(`${p}.b`);
      bus.publish(`${p}.b`, '1');
      await bus.flush();
      buffered.unsubscribe();
      expect(await readAll(buffered)).toEqual([]);
      bus.publish(`${p}.b`, '2');
      await bus.flush();
      expect(await readAll(buffered)).toEqual([]);
    });

    it('delivers on subscription drain what was published before, then ends', async () => {
      const bus = await open();
      const p = uniquePrefix();
      const sub = bus.subscribe(`${p}.d`);
      for (let i = 0; i < 5; i++) bus.publish(`${p}.d`, String(i));
      await within(sub.drain(), 'drain');
      bus.publish(`${p}.d`, 'late');
      expect((await readAll(sub)).map((m) => m.string())).toEqual(['0', '1', '2', '3', '4']);
      await within(sub.closed, 'closed');
    });

    it('delivers on bus drain what was published before, then closes', async () => {
      const bus = await open();
      const p = uniquePrefix();
      const sub = bus.subscribe(`${p}.d`);
      for (let i = 0; i < 5; i++) bus.publish(`${p}.d`, String(i));
      await within(bus.drain(), 'bus drain');
      expect(bus.isClosed).toBe(true);
      expect((await readAll(sub)).map((m) => m.string())).toEqual(['0', '1', '2', '3', '4']);
      await bus.close();
      expect(thrown(() => bus.publish(`${p}.d`)).code).toBe('closed');
    });

    it('rejects pending requests with closed on close, and refuses work afterwards', async () => {
      const bus = await open();
      const p = uniquePrefix();
      const silent = bus.subscribe(`${p}.silent`);
      const iterating = readAll(silent);
      const pending = bus.request(`${p}.silent`, 'x', { timeoutMs: TEST_WAIT_MS });
      await bus.flush();
      await bus.close();
      const err = await rejection(pending);
      expect(err.code).toBe('closed');
      expect(err.retryable).toBe(false);
      // The request itself reached the silent subscriber before the close ended its iteration.
      expect((await iterating).map((m) => m.string())).toEqual(['x']);
      expect(bus.isClosed).toBe(true);
      expect(thrown(() => bus.publish(`${p}.x`)).code).toBe('closed');
      expect(thrown(() => bus.subscribe(`${p}.x`)).code).toBe('closed');
      expect((await rejection(bus.request(`${p}.x`, 'x', { timeoutMs: SHORT_TIMEOUT_MS }))).code).toBe('closed');
      expect((await rejection(bus.flush())).code).toBe('closed');
      await bus.close();
    });

    it('keeps publish order within a subscription', async () => {
      const bus = await open();
      const p = uniquePrefix();
      const count = 500;
      const sub = bus.subscribe(`${p}.seq`);
      for (let i = 0; i < count; i++) bus.publish(`${p}.seq`, String(i));
      const got = (await take(sub, count)).map((m) => Number(m.string()));
      expect(got).toEqual(Array.from({ length: count }, (_, i) => i));
    });

    it('carries every byte value intact, both ways of a request', async () => {
      const bus = await open();
      const p = uniquePrefix();
      const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
      serve(bus.subscribe(`${p}.echo`), (m) => Uint8Array.from(m.data).reverse());
      const sub = bus.subscribe(`${p}.bin`);
      bus.publish(`${p}.bin`, bytes);
      const [message] = await take(sub, 1);
      expect(Array.from(message?.data ?? [])).toEqual(Array.from(bytes));
      const answer = await bus.request(`${p}.echo`, bytes, { timeoutMs: TEST_WAIT_MS });
      expect(Array.from(answer.data)).toEqual(Array.from(bytes).reverse());
    });

    it('decodes payloads with string() and json()', async () => {
      const bus = await open();
      const p = uniquePrefix();
      const sub = bus.subscribe(`${p}.>`);
      const value = { call: 'c1', words: ['héllo', '🎙'], n: 3, nested: { ok: true } };
      bus.publish(`${p}.json`, JSON.stringify(value));
      bus.publish(`${p}.text`, 'grüße ✓');
      bus.publish(`${p}.empty`);
      bus.publish(`${p}.bad`, '{not json');
      const [json, text, empty, bad] = await take(sub, 4);
      expect(json?.json()).toEqual(value);
      expect(text?.string()).toBe('grüße ✓');
      expect(empty?.data.byteLength).toBe(0);
      expect(empty?.string()).toBe('');
      expect(() => bad?.json()).toThrow(SyntaxError);
    });

    it('drops the oldest messages of a full subscription buffer and counts them', async () => {
      const bus = await open();
      const p = uniquePrefix();
      const extra = 10;
      const sub = bus.subscribe(`${p}.flood`);
      for (let i = 0; i < SUBSCRIPTION_BUFFER_MESSAGES + extra; i++) bus.publish(`${p}.flood`, String(i));
      const [got] = await drainAndRead(bus, [sub]);
      expect(sub.dropped).toBe(extra);
      expect(got).toHaveLength(SUBSCRIPTION_BUFFER_MESSAGES);
      expect(got?.[0]?.string()).toBe(String(extra));
      expect(got?.at(-1)?.string()).toBe(String(SUBSCRIPTION_BUFFER_MESSAGES + extra - 1));
    });

    it('refuses invalid subjects with bad_subject', async () => {
      const bus = await open();
      const p = uniquePrefix();
      expect(thrown(() => bus.publish(`${p}..x`)).code).toBe('bad_subject');
      expect(thrown(() => bus.publish(`${p}.*`)).code).toBe('bad_subject');
      expect(thrown(() => bus.publish(`${p}.a b`)).code).toBe('bad_subject');
      expect(thrown(() => bus.subscribe(`${p}.>.x`)).code).toBe('bad_subject');
      expect(thrown(() => bus.subscribe(`${p}.x`, { queue: 'a b' })).code).toBe('bad_subject');
      expect((await rejection(bus.request(`${p}.>`, 'x', { timeoutMs: SHORT_TIMEOUT_MS }))).code).toBe('bad_subject');
    });

    it('describes itself for logs', async () => {
      const bus = await open();
      expect(bus.description.length).toBeGreaterThan(0);
      expect(bus.isClosed).toBe(false);
    });
  });
}

busContract('MemoryBus', () => Promise.resolve(new MemoryBus()));
// A namespaced view must behave exactly like a bus of its own.
busContract('namespaced MemoryBus', () => Promise.resolve(namespacedBus(new MemoryBus(), 'tenant.a')));

const natsUrl = process.env.NATS_URL ?? '';
const requireAll = process.env.PARLEY_REQUIRE_ALL === '1';
const natsSuiteName =
  natsUrl === ''
    ? 'NatsBus (skipped: NATS_URL is unset; set NATS_URL=nats://127.0.0.1:4222 to run it)'
    : `NatsBus at ${natsUrl}`;

describe.skipIf(natsUrl === '')(natsSuiteName, () => {
  busContract('NatsBus', () => NatsBus.connect(natsUrl, { name: 'parley-bus-contract' }));
  busContract('namespaced NatsBus', async () =>
    namespacedBus(await NatsBus.connect(natsUrl, { name: 'parley-bus-contract' }), 'tenant.b'),
  );
});

// Under PARLEY_REQUIRE_ALL=1 a missing server is a failure, not a quiet skip.
if (requireAll && natsUrl === '') {
  describe('NatsBus under PARLEY_REQUIRE_ALL=1', () => {
    it('has a NATS server to test against', () => {
      throw new Error('NATS_URL is required when PARLEY_REQUIRE_ALL=1');
    });
  });
}
