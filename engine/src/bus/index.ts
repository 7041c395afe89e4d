/**
 * The bus's public face (engine/package.json `exports` "./bus"). Roles receive a Bus from `connectBus` and never
 * construct an implementation themselves, so embedded and scale-out modes differ only in configuration.
 */
import type { Bus } from './bus.ts';
import { MemoryBus } from './memory-bus.ts';
import { NatsBus } from './nats-bus.ts';

export type {
  Bus,
  BusMessage,
  ConnectionListener,
  ConsumeOptions,
  DurableMessage,
  DurableSubscription,
  Payload,
  RequestOptions,
  StreamSpec,
  SubscribeOptions,
  Subscription,
} from './bus.ts';
export { DURABLE_DEFAULTS } from './options.ts';
export { BUS_ERROR_CODES, BusError, isBusError, type BusErrorCode } from './errors.ts';
export { SUBSCRIPTION_BUFFER_MESSAGES } from './buffered-subscription.ts';
export { MEMORY_BUS_MAX_PAYLOAD_BYTES, MemoryBus } from './memory-bus.ts';
export { NATS_CONNECT_TIMEOUT_MS, NatsBus, type NatsBusOptions } from './nats-bus.ts';
export { namespacedBus } from './namespaced-bus.ts';

/**
 * The bus for this process: NATS when `natsUrl` is given (scale-out, NATS_URL), otherwise a new in-process bus
 * (embedded mode, every role in this process sharing it).
 * @param natsUrl the NATS server URL, for example `nats://127.0.0.1:4222`; undefined or empty for in-process
 * @param name the client name the NATS server shows for this connection
 */
export async function connectBus(natsUrl: string | undefined, name: string): Promise<Bus> {
  if (natsUrl === undefined || natsUrl === '') return new MemoryBus();
  return NatsBus.connect(natsUrl, { name });
}
