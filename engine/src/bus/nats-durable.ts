/**
 * NatsBus's durable consumers (Bus.consume) on JetStream, @nats-io/jetstream v3: the stream is created, or brought
 * to the caller's spec, when a consumer starts; the durable pull consumer likewise; messages then flow through the
 * client's `consume()`, which pulls `batch` messages at a time, refills only as we iterate (so a slow handler holds
 * at most one batch in memory) and recovers by itself from reconnects and from a stream or consumer recreated
 * under it.
 *
 * Publishers stay on core NATS `publish`: the server stores what a stream's subjects receive whoever sent it. A
 * JetStream publish (which waits for the stream's ack) would tell the publisher the message is stored, but costs a
 * round trip per message and an answer to handle, and fails outright (no responders) where no stream was set up
 * yet. The engines' call events take the core path: the only loss it leaves is a NATS server that dies between
 * taking a message and writing it, a window of milliseconds next to the control-plane restarts this closes — and
 * the control plane's sweeper still finishes a call whose end never came.
 */
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  JetStreamApiCodes,
  JetStreamApiError,
  ReplayPolicy,
  RetentionPolicy,
  StorageType,
  type ConsumerConfig,
  type ConsumerInfo,
  type ConsumerMessages,
  type JetStreamManager,
  type JsMsg,
} from '@nats-io/jetstream';
import type { DurableMessage, DurableSubscription, StreamSpec } from './bus.ts';
import { DurableMessageImpl } from './bus-message.ts';
import { toBusError } from './nats-errors.ts';
import type { ResolvedConsumeOptions } from './options.ts';

/** JetStream API error: a stream of that name exists with another configuration (ours changed: update it). */
const STREAM_NAME_IN_USE = 10058;
/** JetStream API error (servers ≥ 2.10): a consumer of that name exists with another configuration. */
const CONSUMER_ALREADY_EXISTS = 10148;

/** What a durable subscription needs of the NatsBus that made it. */
export interface NatsDurableSource {
  readonly nc: NatsConnection;
  /** The bus's JetStream manager. */
  readonly jsm: JetStreamManager;
  /** True once the bus is closing: a failure from then on is reported as `closed`. */
  closing(): boolean;
}

export class NatsDurableSubscription implements DurableSubscription {
  readonly subject: string;
  readonly ready: Promise<void>;
  readonly closed: Promise<void>;
  /** The operation, for error messages. */
  readonly #operation: string;
  readonly #source: NatsDurableSource;
  #messages: ConsumerMessages | undefined;
  #stopped = false;
  #iterating = false;
  #resolveClosed!: () => void;

  constructor(source: NatsDurableSource, subject: string, options: ResolvedConsumeOptions) {
    this.subject = subject;
    this.#source = source;
    this.#operation = `consume ${subject} (stream ${options.stream.name}, durable ${options.durable})`;
    this.closed = new Promise((resolve) => {
      this.#resolveClosed = resolve;
    });
    this.ready = this.#start(options);
    // Nobody has to await `ready`: a failure also ends the iteration, which throws it.
    this.ready.catch(() => {});
  }

  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    // The client's stop is queued behind the messages it already holds, so an iterator still gets those.
    void this.#messages?.close();
    if (!this.#iterating) this.#resolveClosed();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<DurableMessage> {
    this.#iterating = true;
    try {
      await this.ready;
      const messages = this.#messages;
      if (messages === undefined) return;
      try {
        for await (const msg of messages) yield durableMessage(msg);
      } catch (err) {
        throw toBusError(err, this.#operation, this.#source.closing());
      }
    } finally {
      // A `break` lands here too: the caller wants no more, so stop pulling.
      this.#stopped = true;
      void this.#messages?.close();
      this.#resolveClosed();
    }
  }

  async #start(options: ResolvedConsumeOptions): Promise<void> {
    try {
      // Runs synchronously up to the stream create's request: it leaves within `consume`, ahead of anything the
      // caller publishes next on the same connection.
      const { jsm } = this.#source;
      await ensureStream(jsm, options.stream);
      const info = await ensureConsumer(jsm, this.subject, options);
      if (this.#stopped) return;
      const consumer = jetstream(this.#source.nc).consumers.getConsumerFromInfo(info);
      this.#messages = await consumer.consume({ max_messages: options.batch });
    } catch (err) {
      this.#stopped = true;
      this.#resolveClosed();
      throw toBusError(err, this.#operation, this.#source.closing());
    }
  }
}

/**
 * Creates the stream, or brings an existing one to `spec`. Only what the spec names is changed on an existing
 * stream: storage and retention cannot change on a live stream, and replicas or limits an operator set stay.
 */
export async function ensureStream(jsm: JetStreamManager, spec: StreamSpec): Promise<void> {
  const subjects = [...spec.subjects];
  const maxAge = nanos(spec.maxAgeMs);
  try {
    // Succeeds as well when the stream exists with this very configuration, the case of every start but the first.
    await jsm.streams.add({
      name: spec.name,
      subjects,
      max_age: maxAge,
      // On disk: the point is to outlive restarts, the server's included.
      storage: StorageType.File,
      // Kept until max age, acknowledged or not: a message stays readable for replay whatever its consumers did.
      retention: RetentionPolicy.Limits,
    });
  } catch (err) {
    if (!(err instanceof JetStreamApiError) || err.code !== STREAM_NAME_IN_USE) throw err;
    await jsm.streams.update(spec.name, { subjects, max_age: maxAge });
  }
}

/** Creates the durable pull consumer, or updates it to these options (they may have changed since it was made). */
async function ensureConsumer(
  jsm: JetStreamManager,
  subject: string,
  options: ResolvedConsumeOptions,
): Promise<ConsumerInfo> {
  const [firstWait = 0] = options.ackWaitMs;
  const config: Partial<ConsumerConfig> = {
    durable_name: options.durable,
    filter_subject: subject,
    ack_policy: AckPolicy.Explicit,
    // A durable made after its stream takes what the stream already holds: those messages were waiting for it.
    deliver_policy: DeliverPolicy.All,
    replay_policy: ReplayPolicy.Instant,
    // With a backoff the server takes each delivery's wait from it; its first entry is the ack wait.
    ack_wait: nanos(firstWait),
    ...(options.ackWaitMs.length > 1 ? { backoff: options.ackWaitMs.map((wait) => nanos(wait)) } : {}),
    max_deliver: options.maxDeliver,
    max_ack_pending: options.maxAckPending,
  };
  try {
    // Servers before 2.10 update an existing durable on create; later ones refuse a changed one (handled below).
    return await jsm.consumers.add(options.stream.name, config);
  } catch (err) {
    if (!(err instanceof JetStreamApiError) || err.code !== CONSUMER_ALREADY_EXISTS) throw err;
    return jsm.consumers.update(options.stream.name, options.durable, config);
  }
}

/** Deletes a stream; false when there was none. */
export async function deleteStream(jsm: JetStreamManager, name: string): Promise<boolean> {
  try {
    return await jsm.streams.delete(name);
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) return false;
    throw err;
  }
}

function durableMessage(msg: JsMsg): DurableMessage {
  return new DurableMessageImpl(msg.subject, msg.data, msg.info.deliveryCount, {
    ack: () => msg.ack(),
    nak: (delayMs) => msg.nak(delayMs),
  });
}
