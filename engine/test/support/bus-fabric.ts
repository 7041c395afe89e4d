/**
 * The buses worker tests run on: the in-process bus (every "process" shares it) and, when NATS_URL is set, NATS
 * (each "process" its own connection), all under one random namespace per file so parallel files never share
 * a queue group.
 */
import { randomBytes } from 'node:crypto';
import { describe, it } from 'vitest';
import { MemoryBus, namespacedBus, NatsBus, type Bus } from '../../src/bus/index.ts';

export interface BusFabric {
  name: string;
  /** A bus for one more "process". */
  connect(): Promise<Bus>;
  close(): Promise<void>;
}

const natsUrl = process.env.NATS_URL ?? '';

export function fabrics(): BusFabric[] {
  const namespace = `test.${randomBytes(5).toString('hex')}`;
  const memory = new MemoryBus();
  const list: BusFabric[] = [
    {
      name: 'in-process bus',
      connect: async () => namespacedBus(memory, namespace),
      close: () => memory.close(),
    },
  ];
  if (natsUrl) {
    const opened: Bus[] = [];
    list.push({
      name: `NATS at ${natsUrl}`,
      async connect() {
        const bus = namespacedBus(await NatsBus.connect(natsUrl, { name: 'parley-worker-test' }), namespace);
        opened.push(bus);
        return bus;
      },
      async close() {
        await Promise.all(opened.map((bus) => bus.close()));
      },
    });
  } else if (process.env.PARLEY_REQUIRE_ALL === '1') {
    describe('NATS under PARLEY_REQUIRE_ALL=1', () => {
      it('has a NATS server to test against', () => {
        throw new Error('NATS_URL is required when PARLEY_REQUIRE_ALL=1');
      });
    });
  }
  return list;
}
