/**
 * The Bus: how Parley's roles talk to each other (docs/architecture.md §2, §4).
 *
 * Two implementations satisfy this one interface: NATS for scale-out (every role its own process, workers and
 * engines as queue groups) and an in-process bus for the embedded single-process mode. A contract test suite
 * runs against both, so code written against `Bus` behaves the same in either mode.
 *
 * Subjects follow NATS rules: dot-separated tokens; `*` matches one token and `>` one or more trailing tokens
 * (subscriptions only). Payloads are bytes; JSON helpers are provided by the message.
 */

/** What may be published: raw bytes, or a string sent as UTF-8. */
export type Payload = Uint8Array | string;

export interface BusMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  /** Reply subject when the sender is waiting for an answer (request/reply). */
  readonly reply?: string;
  /** The payload decoded as UTF-8. */
  string(): string;
  /** The payload parsed as JSON. Throws a SyntaxError on a malformed payload. */
  json<T = unknown>(): T;
  /** Answers a request. Returns false when the message carried no reply subject. */
  respond(data?: Payload): boolean;
}

export interface SubscribeOptions {
  /** Queue group: each message goes to exactly one member of the group. */
  queue?: string;
  /** Unsubscribe automatically after this many messages. */
  max?: number;
}

/** An async-iterable subscription; iteration ends when it is unsubscribed, drained or the bus closes. */
export interface Subscription extends AsyncIterable<BusMessage> {
  readonly subject: string;
  /**
   * Messages lost because the consumer fell behind: each subscription buffers a bounded number of messages and,
   * when full, drops the oldest (never blocking the publisher or the event loop). Non-zero means a slow consumer.
   */
  readonly dropped: number;
  /** Stops delivery at once; messages not yet iterated are discarded. */
  unsubscribe(): void;
  /** Stops taking new messages but lets the iterator finish the ones already delivered. */
  drain(): Promise<void>;
  /** Settles when the subscription has ended, for whatever reason. */
  readonly closed: Promise<void>;
}

/**
 * A stream: the NATS server keeps every message published on its subjects, whether or not anyone is listening,
 * for `maxAgeMs` (limits retention: acknowledging a message does not remove it; age does).
 */
export interface StreamSpec {
  /** Letters, digits, `-` and `_` only (NATS stream names take no dots, wildcards or slashes). */
  readonly name: string;
  /** The subjects it captures, wildcards allowed; they must not overlap another stream's subjects. */
  readonly subjects: readonly string[];
  /** How long a message is kept, in milliseconds. */
  readonly maxAgeMs: number;
}

export interface ConsumeOptions {
  /** The stream the messages are kept in; created, or updated to this spec, when the consumer starts. */
  readonly stream: StreamSpec;
  /**
   * The durable consumer's name (letters, digits, `-`, `_`). Every consumer started with the same name, in any
   * process, shares one position in the stream: each message goes to one of them, like a queue group, and what
   * none of them acknowledged is delivered again, including after every one of them was stopped and restarted.
   */
  readonly durable: string;
  /**
   * How long a delivered message may stay unanswered (no `ack`, no `nak`) before the server delivers it again, in
   * milliseconds. A list is a backoff: the n-th delivery waits the n-th entry, the last one repeating.
   * Default DURABLE_DEFAULTS.ackWaitMs.
   */
  readonly ackWaitMs?: number | readonly number[];
  /**
   * Deliveries of one message at most (the first included); after that the server stops delivering it, though it
   * stays in the stream until `maxAgeMs`. Must exceed the length of an `ackWaitMs` list. Default unlimited.
   */
  readonly maxDeliver?: number;
  /** Messages this consumer holds at once, delivered but not yet iterated (one pull). Default DURABLE_DEFAULTS. */
  readonly batch?: number;
  /**
   * Messages delivered and not yet answered, summed over every consumer of the durable: the server delivers no more
   * beyond it (a bound on a burst in memory; the backlog itself waits in the stream). Default DURABLE_DEFAULTS.
   */
  readonly maxAckPending?: number;
}

/** A message of a durable consumer: answer it with `ack` once handled, or `nak` to have it delivered again. */
export interface DurableMessage extends BusMessage {
  /** 1 on the first delivery, 2 on the first redelivery, and so on. */
  readonly deliveryCount: number;
  /** Handled: never deliver it again. Never throws; an ack that cannot reach the server is a redelivery later. */
  ack(): void;
  /**
   * Not handled: deliver it again after `delayMs` milliseconds (at once when omitted), to this consumer or another
   * of the durable. Never throws.
   */
  nak(delayMs?: number): void;
}

/** The messages of a durable consumer, as an async iterable; iterate it once. */
export interface DurableSubscription extends AsyncIterable<DurableMessage> {
  /** The subject (pattern) consumed. */
  readonly subject: string;
  /**
   * Settles once the stream and the consumer exist and messages flow; rejects with a BusError when they could not
   * be set up (iteration then throws the same error). Nothing needs to wait for it: iteration waits by itself.
   */
  readonly ready: Promise<void>;
  /**
   * Stops taking new messages. Those already handed to this consumer are still iterated; whatever is left
   * unanswered is delivered again (after the ack wait) to another consumer of the durable or a later one.
   */
  stop(): void;
  /** Settles when iteration has ended (or, never iterated, when stopped), for whatever reason. */
  readonly closed: Promise<void>;
}

export interface RequestOptions {
  /** How long to wait for an answer, in milliseconds. */
  timeoutMs: number;
}

/** Told when the bus loses (false) or regains (true) its server. */
export type ConnectionListener = (connected: boolean, server: string) => void;

export interface Bus {
  /** Fire and forget. Never blocks the event loop. */
  publish(subject: string, data?: Payload): void;
  subscribe(subject: string, options?: SubscribeOptions): Subscription;
  /**
   * Sends a request and waits for the first answer.
   * Rejects with a BusError: code `no_responders` when nobody subscribes to the subject, `timeout` when no answer
   * came in time, `closed` when the bus is closed.
   */
  request(subject: string, data: Payload | undefined, options: RequestOptions): Promise<BusMessage>;
  /**
   * Takes the messages of a stream through a durable consumer: at-least-once delivery that survives this process,
   * for what must not be lost when no consumer is running (the engines' call events). Publishers need nothing
   * special: a plain `publish` on a subject the stream captures is kept by the server.
   *
   * Over NATS this is JetStream (a file-backed stream, a durable pull consumer with explicit acks). In-process
   * there is no server to keep anything: a plain queue subscription under the durable's name, where `ack` does
   * nothing and `nak` delivers the message again within this process — nothing outlives the process anyway.
   * @param subject the subjects to take (wildcards allowed), within the stream's subjects
   * @throws BusError `closed` when the bus is closed, `bad_subject` for an invalid subject; RangeError when a name
   *   breaks NATS naming rules, a number is not positive, or the subject lies outside the stream's subjects
   */
  consume(subject: string, options: ConsumeOptions): DurableSubscription;
  /**
   * Removes a stream with its consumers and every message it holds; false when there was no such stream (and
   * always in-process, where there are no streams). For tests and namespaces that clean up after themselves.
   */
  deleteStream(name: string): Promise<boolean>;
  /** Resolves once everything published so far has reached the server (NATS) or the subscribers (in-process). */
  flush(): Promise<void>;
  /** Drains every subscription, then closes. */
  drain(): Promise<void>;
  /** Closes at once; pending requests reject with `closed`. Idempotent. */
  close(): Promise<void>;
  readonly isClosed: boolean;
  /**
   * Whether the server is reachable now: false while a lost NATS connection is being re-established (publishes are
   * buffered by the client meanwhile, requests fail). Always true in-process until closed.
   */
  readonly isConnected: boolean;
  /**
   * Calls `listener` each time the connection is lost (false) or re-established (true), with the server's address;
   * returns the function that stops it. In-process there is nothing to lose: it is never called.
   */
  onConnectionChange(listener: ConnectionListener): () => void;
  /** A short description for logs and /readyz, for example `nats://127.0.0.1:4222` or `in-process`. */
  readonly description: string;
}
