/**
 * A view of a bus under a subject prefix: `publish('v1.llm.open')` goes out as `<prefix>.v1.llm.open`, and
 * subscribers see subjects without the prefix. Several Parley installations (or test files) can then share one
 * NATS server without hearing each other's workers. Reply subjects (inboxes) pass through untouched.
 */
import type { Bus, BusMessage, Payload, RequestOptions, SubscribeOptions, Subscription } from './bus.ts';

export function namespacedBus(inner: Bus, prefix: string): Bus {
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(prefix)) throw new RangeError(`bad bus namespace "${prefix}"`);
  const outer = (subject: string) => `${prefix}.${subject}`;
  const strip = (subject: string) => (subject.startsWith(`${prefix}.`) ? subject.slice(prefix.length + 1) : subject);
  const view = (message: BusMessage): BusMessage => ({
    subject: strip(message.subject),
    data: message.data,
    reply: message.reply,
    string: () => message.string(),
    json: <T>() => message.json<T>(),
    respond: (data?: Payload) => message.respond(data),
  });
  return {
    publish: (subject, data) => inner.publish(outer(subject), data),
    subscribe(subject: string, options?: SubscribeOptions): Subscription {
      const sub = inner.subscribe(outer(subject), options);
      return {
        subject,
        get dropped() {
          return sub.dropped;
        },
        unsubscribe: () => sub.unsubscribe(),
        drain: () => sub.drain(),
        closed: sub.closed,
        async *[Symbol.asyncIterator]() {
          for await (const message of sub) yield view(message);
        },
      };
    },
    request: async (subject: string, data: Payload | undefined, options: RequestOptions) =>
      view(await inner.request(outer(subject), data, options)),
    flush: () => inner.flush(),
    drain: () => inner.drain(),
    close: () => inner.close(),
    get isClosed() {
      return inner.isClosed;
    },
    get description() {
      return `${inner.description} (namespace ${prefix})`;
    },
  };
}
