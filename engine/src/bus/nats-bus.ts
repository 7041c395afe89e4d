/**
 * The Bus over a NATS server (scale-out mode), on @nats-io/transport-node v3. Messages reach each subscription
 * through a client callback into our own bounded buffer (BufferedSubscription), not the client's unbounded
 * iterator, so both buses share one bound, one drop policy and one unsubscribe/drain behaviour. Durable consumers
 * (`consume`) use JetStream over the same connection (nats-durable.ts); core publish and subscribe are untouched.
 */
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type Msg, type NatsConnection, type Subscription as NatsSubscription } from '@nats-io/transport-node';
import type {
  Bus,
  BusMessage,
  ConnectionListener,
  ConsumeOptions,
  DurableSubscription,
  Payload,
  RequestOptions,
  SubscribeOptions,
  Subscription,
} from './bus.ts';
import { BufferedSubscription } from './buffered-subscription.ts';
import { BusMessageImpl, payloadBytes } from './bus-message.ts';
import { BusError } from './errors.ts';
import { deleteStream, NatsDurableSubscription, type NatsDurableSource } from './nats-durable.ts';
import { toBusError } from './nats-errors.ts';
import { assertRequestTimeout, assertSubscribeOptions, resolveConsumeOptions } from './options.ts';
import { assertPublishSubject, assertSubscribeSubject } from './subject-match.ts';

/** How long the first connection may take, in ms: a role should fail its start clearly, not hang on a bad URL. */
export const NATS_CONNECT_TIMEOUT_MS = 5_000;
/** Reconnect attempts after a lost connection: unlimited; a role without its bus is useless, and /readyz says so. */
const NATS_RECONNECT_ATTEMPTS_FOREVER = -1;

export interface NatsBusOptions {
  /** Client name shown by the server's monitoring (for example `parley-engine`). */
  name: string;
}

export class NatsBus implements Bus {
  /** The server URL(s), without credentials. */
  readonly description: string;
  readonly #connection: NatsConnection;
  /** Live subscriptions, so `close` can end their iteration at once. */
  readonly #subscriptions = new Set<BufferedSubscription>();
  /** Live durable consumers, so `close` and `drain` can stop them. */
  readonly #durables = new Set<NatsDurableSubscription>();
  readonly #durableSource: NatsDurableSource;
  /** Set when close or drain starts: a connection error from then on is our own doing, reported as `closed`. */
  #closing = false;
  /** The one close in progress or done, so a second `close` waits for the first instead of closing twice. */
  #closed: Promise<void> | undefined;
  /** False between the client's `disconnect` and `reconnect` statuses. */
  #connected = true;
  readonly #connectionListeners = new Set<ConnectionListener>();

  private constructor(nc: NatsConnection, jsm: JetStreamManager, description: string) {
    this.#connection = nc;
    this.description = description;
    this.#durableSource = { nc, jsm, closing: () => this.#closing };
    void this.#watchConnection();
  }

  get isConnected(): boolean {
    return this.#connected && !this.isClosed;
  }

  onConnectionChange(listener: ConnectionListener): () => void {
    this.#connectionListeners.add(listener);
    return () => this.#connectionListeners.delete(listener);
  }

  /** Follows the client's status events until the connection closes (the iterator then ends). */
  async #watchConnection(): Promise<void> {
    for await (const status of this.#connection.status()) {
      if (status.type !== 'disconnect' && status.type !== 'reconnect') continue;
      this.#connected = status.type === 'reconnect';
      for (const listener of this.#connectionListeners) {
        try {
          listener(this.#connected, status.server);
        } catch {
          // A listener's fault is its own: the others are still told.
        }
      }
    }
  }

  /**
   * Connects to the NATS server at `url` (for example `nats://127.0.0.1:4222`, or several separated by commas).
   * Rejects with a BusError (`disconnected` when the server cannot be reached).
   */
  static async connect(url: string, options: NatsBusOptions): Promise<NatsBus> {
    const servers = url
      .split(',')
      .map((server) => server.trim())
      .filter((server) => server !== '');
    const description = servers.map(withoutCredentials).join(',');
    try {
      const nc = await connect({
        servers,
        name: options.name,
        timeout: NATS_CONNECT_TIMEOUT_MS,
        maxReconnectAttempts: NATS_RECONNECT_ATTEMPTS_FOREVER,
      });
      // Made here, with no API check (no request), so that `consume` sends its stream's create within its own call:
      // a message published on this connection right after `consume` returns then reaches the stream.
      const jsm = await jetstreamManager(nc, { checkAPI: false });
      return new NatsBus(nc, jsm, description);
    } catch (err) {
      throw toBusError(err, `connect to ${description}`, false);
    }
  }

  get isClosed(): boolean {
    return this.#connection.isClosed();
  }

  publish(subject: string, data?: Payload): void {
    if (this.#closing) throw new BusError('closed', `publish on ${subject}: the bus is closed`);
    assertPublishSubject(subject);
    const bytes = this.#checkedBytes(subject, data);
    try {
      this.#connection.publish(subject, bytes);
    } catch (err) {
      throw toBusError(err, `publish on ${subject}`, this.#closing);
    }
  }

  subscribe(subject: string, options: SubscribeOptions = {}): Subscription {
    if (this.#closing) throw new BusError('closed', `subscribe to ${subject}: the bus is closed`);
    assertSubscribeSubject(subject);
    assertSubscribeOptions(options);
    let natsSubscription: NatsSubscription | undefined;
    const subscription = new BufferedSubscription(subject, {
      detach: () => natsSubscription?.unsubscribe(),
      drain: async () => {
        try {
          await natsSubscription?.drain();
        } catch (err) {
          throw toBusError(err, `drain ${subject}`, this.#closing);
        }
      },
    });
    try {
      natsSubscription = this.#connection.subscribe(subject, {
        ...(options.queue === undefined ? {} : { queue: options.queue }),
        ...(options.max === undefined ? {} : { max: options.max }),
        // An error here is terminal for the subscription (a permission violation); the client closes it next.
        callback: (err, msg) => {
          if (err === null) subscription.push(this.#wrap(msg));
        },
      });
    } catch (err) {
      throw toBusError(err, `subscribe to ${subject}`, this.#closing);
    }
    // The client closes its subscription on `max`, drain, a server error or a closed connection: no more will come.
    void natsSubscription.closed.then(() => subscription.seal());
    this.#subscriptions.add(subscription);
    void subscription.closed.then(() => this.#subscriptions.delete(subscription));
    return subscription;
  }

  consume(subject: string, options: ConsumeOptions): DurableSubscription {
    if (this.#closing) throw new BusError('closed', `consume ${subject}: the bus is closed`);
    const durable = new NatsDurableSubscription(this.#durableSource, subject, resolveConsumeOptions(subject, options));
    this.#durables.add(durable);
    void durable.closed.then(() => this.#durables.delete(durable));
    return durable;
  }

  async deleteStream(name: string): Promise<boolean> {
    if (this.#closing) throw new BusError('closed', `delete stream ${name}: the bus is closed`);
    try {
      return await deleteStream(this.#durableSource.jsm, name);
    } catch (err) {
      throw toBusError(err, `delete stream ${name}`, this.#closing);
    }
  }

  async request(subject: string, data: Payload | undefined, options: RequestOptions): Promise<BusMessage> {
    if (this.#closing) throw new BusError('closed', `request on ${subject}: the bus is closed`);
    assertPublishSubject(subject);
    assertRequestTimeout(options.timeoutMs);
    const bytes = this.#checkedBytes(subject, data);
    try {
      return this.#wrap(await this.#connection.request(subject, bytes, { timeout: options.timeoutMs }));
    } catch (err) {
      throw toBusError(err, `request on ${subject}`, this.#closing);
    }
  }

  async flush(): Promise<void> {
    try {
      await this.#connection.flush();
    } catch (err) {
      throw toBusError(err, 'flush', this.#closing);
    }
  }

  async drain(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    // Unanswered durable messages go back to the server: another consumer of the durable takes them.
    for (const durable of this.#durables) durable.stop();
    try {
      await this.#connection.drain();
    } catch (err) {
      throw toBusError(err, 'drain', true);
    }
    // Closed by the drain: a later `close` must not discard what the drained subscriptions still hold.
    this.#closed ??= Promise.resolve();
  }

  close(): Promise<void> {
    if (this.#closed === undefined) {
      this.#closing = true;
      for (const subscription of this.#subscriptions) subscription.discard();
      this.#subscriptions.clear();
      for (const durable of this.#durables) durable.stop();
      this.#durables.clear();
      this.#closed = this.#connection.isClosed() ? Promise.resolve() : this.#connection.close();
    }
    return this.#closed;
  }

  #wrap(msg: Msg): BusMessage {
    // The client reports "no reply subject" as an empty string.
    const reply = msg.reply === undefined || msg.reply === '' ? undefined : msg.reply;
    return new BusMessageImpl(msg.subject, msg.data, reply, this.#publishReply);
  }

  readonly #publishReply = (replySubject: string, data: Payload | undefined): void => {
    this.publish(replySubject, data);
  };

  /** Encodes the payload and refuses it when bigger than the server's max_payload, before the client would throw. */
  #checkedBytes(subject: string, data: Payload | undefined): Uint8Array {
    const bytes = payloadBytes(data);
    const limit = this.#connection.info?.max_payload;
    if (limit !== undefined && bytes.byteLength > limit) {
      throw new BusError(
        'payload_too_large',
        `publish on ${subject}: payload of ${bytes.byteLength} bytes exceeds the server's ${limit}-byte max_payload`,
      );
    }
    return bytes;
  }
}

/** The server URL as logs and /readyz may show it: user and password in the URL are removed. */
function withoutCredentials(server: string): string {
  if (!URL.canParse(server)) return server;
  const url = new URL(server);
  if (url.username === '' && url.password === '') return server;
  url.username = '';
  url.password = '';
  return url.toString();
}
