/**
 * A view of a bus under a subject prefix: `publish('v1.llm.open')` goes out as `<prefix>.v1.llm.open`, and
 * subscribers see subjects without the prefix. Several Parley installations (or test files) can then share one
 * NATS server without hearing each other's workers. Reply subjects (inboxes) pass through untouched.
 *
 * Durable consumers are namespaced too: the stream captures the prefixed subjects, and the stream's and the
 * durable's names get the prefix (dots made underscores, which NATS names cannot hold), so two namespaces never
 * share a stream or a consumer. A namespace is disposable: the streams set up through this view are deleted when it
 * closes or drains, so test files leave nothing behind on a shared server. (Lasting installations sharing a server
 * are better kept apart by NATS accounts, which isolate streams without any renaming.) Several views of one prefix
 * share its streams, so close the one that set a stream up last.
 */
import type {
  Bus,
  BusMessage,
  ConsumeOptions,
  DurableMessage,
  DurableSubscription,
  Payload,
  RequestOptions,
  SubscribeOptions,
  Subscription,
} from './bus.ts';
import { DurableMessageImpl } from './bus-message.ts';

/** How long closing waits for the namespace's streams to be deleted, ms: cleanup must never hang a shutdown. */
const STREAM_CLEANUP_MS = 2_000;

export function namespacedBus(inner: Bus, prefix: string): Bus {
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(prefix)) throw new RangeError(`bad bus namespace "${prefix}"`);
  const outer = (subject: string) => `${prefix}.${subject}`;
  const strip = (subject: string) => (subject.startsWith(`${prefix}.`) ? subject.slice(prefix.length + 1) : subject);
  const namePrefix = `${prefix.replaceAll('.', '_')}_`;
  const name = (local: string) => `${namePrefix}${local}`;
  /** Streams set up through this view, by their server-side names. */
  const streams = new Set<string>();
  const view = (message: BusMessage): BusMessage => ({
    subject: strip(message.subject),
    data: message.data,
    reply: message.reply,
    string: () => message.string(),
    json: <T>() => message.json<T>(),
    respond: (data?: Payload) => message.respond(data),
  });
  const durableView = (message: DurableMessage): DurableMessage =>
    new DurableMessageImpl(strip(message.subject), message.data, message.deliveryCount, {
      ack: () => message.ack(),
      nak: (delayMs) => message.nak(delayMs),
    });
  const deleteStreams = async () => {
    const names = [...streams];
    streams.clear();
    if (names.length === 0 || inner.isClosed) return;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, STREAM_CLEANUP_MS);
    });
    // Best effort: a stream left behind costs disk on a test server, never correctness.
    const deletions = Promise.allSettled(names.map((stream) => inner.deleteStream(stream)));
    await Promise.race([deletions, deadline]);
    clearTimeout(timer);
  };
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
    consume(subject: string, options: ConsumeOptions): DurableSubscription {
      const stream = {
        ...options.stream,
        name: name(options.stream.name),
        subjects: options.stream.subjects.map(outer),
      };
      const sub = inner.consume(outer(subject), { ...options, stream, durable: name(options.durable) });
      streams.add(stream.name);
      return {
        subject,
        ready: sub.ready,
        closed: sub.closed,
        stop: () => sub.stop(),
        async *[Symbol.asyncIterator]() {
          for await (const message of sub) yield durableView(message);
        },
      };
    },
    deleteStream: (stream: string) => {
      streams.delete(name(stream));
      return inner.deleteStream(name(stream));
    },
    request: async (subject: string, data: Payload | undefined, options: RequestOptions) =>
      view(await inner.request(outer(subject), data, options)),
    flush: () => inner.flush(),
    drain: async () => {
      await deleteStreams();
      await inner.drain();
    },
    close: async () => {
      await deleteStreams();
      await inner.close();
    },
    get isClosed() {
      return inner.isClosed;
    },
    get isConnected() {
      return inner.isConnected;
    },
    onConnectionChange: (listener) => inner.onConnectionChange(listener),
    get description() {
      return `${inner.description} (namespace ${prefix})`;
    },
  };
}
