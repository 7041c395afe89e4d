/**
 * The in-process Bus of embedded mode: every role in one process, no NATS server. It follows NATS semantics
 * closely enough that the contract suite passes against both: subject rules and wildcards, queue groups (one
 * member per group gets each message), request/reply over inbox subjects with `no_responders`, `max`, drain.
 *
 * Routing is synchronous (a published message is in every recipient's buffer when `publish` returns, which is what
 * makes `flush` and `drain` exact); consumption is asynchronous (a consumer wakes on a resolved promise, so it never
 * runs inside the publisher's call).
 */
import { randomBytes } from 'node:crypto';
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
  ConnectionListener,
} from './bus.ts';
import { BufferedSubscription } from './buffered-subscription.ts';
import { BusMessageImpl, DurableMessageImpl, payloadBytes } from './bus-message.ts';
import { BusError } from './errors.ts';
import { MemoryDurableSubscription } from './memory-durable.ts';
import { assertRequestTimeout, assertSubscribeOptions, resolveConsumeOptions } from './options.ts';
import {
  assertPublishSubject,
  assertSubscribeSubject,
  hasWildcard,
  splitSubject,
  tokensMatch,
} from './subject-match.ts';

/**
 * Largest payload accepted, in bytes: the NATS server's default max_payload (1 MiB), so a message that works in
 * embedded mode also goes through a default NATS deployment.
 */
export const MEMORY_BUS_MAX_PAYLOAD_BYTES = 1024 * 1024;

/** Random bytes in this bus's inbox prefix, so inboxes of two buses in one process never collide. */
const INBOX_ID_BYTES = 8;

interface Route {
  readonly subscription: BufferedSubscription;
  readonly tokens: readonly string[];
  readonly wildcard: boolean;
  readonly queue: string | undefined;
  readonly max: number | undefined;
  delivered: number;
}

/** The queue group standing for a durable consumer in-process, and its deliveries per message at most (-1: no limit). */
interface DurableGroup {
  readonly queue: string;
  readonly maxDeliver: number;
}

interface PendingRequest {
  resolve(message: BusMessage): void;
  reject(error: BusError): void;
  timer: NodeJS.Timeout;
}

type State = 'open' | 'draining' | 'closed';

export class MemoryBus implements Bus {
  readonly description = 'in-process';
  /** Routes of wildcard-free subscriptions by subject: most subscriptions, found without scanning. */
  readonly #literal = new Map<string, Route[]>();
  readonly #wildcard: Route[] = [];
  readonly #requests = new Map<string, PendingRequest>();
  /** Round-robin position of each queue group, by group name. */
  readonly #queueCursor = new Map<string, number>();
  readonly #inboxPrefix = `_INBOX.${randomBytes(INBOX_ID_BYTES).toString('hex')}.`;
  #inboxSequence = 0;
  /** Nak'd durable messages waiting for their delay; dropped when the bus closes. */
  readonly #redeliveries = new Set<NodeJS.Timeout>();
  #state: State = 'open';

  get isClosed(): boolean {
    return this.#state === 'closed';
  }

  get isConnected(): boolean {
    return !this.isClosed;
  }

  onConnectionChange(_listener: ConnectionListener): () => void {
    return () => {};
  }

  publish(subject: string, data?: Payload): void {
    this.#assertOpen();
    assertPublishSubject(subject);
    this.#route(subject, this.#ownBytes(data), undefined);
  }

  subscribe(subject: string, options: SubscribeOptions = {}): Subscription {
    if (this.#state !== 'open') throw closedError();
    assertSubscribeSubject(subject);
    assertSubscribeOptions(options);
    return this.#open(subject, options);
  }

  /**
   * In-process, a durable consumer is a queue subscription named after the durable: its consumers split the
   * messages; `ack` does nothing and `nak` delivers the message again, after its delay, to a consumer of the
   * durable still running. The stream options are checked, then ignored: nothing outlives the process anyway.
   */
  consume(subject: string, options: ConsumeOptions): DurableSubscription {
    if (this.#state !== 'open') throw closedError();
    const { stream, durable, maxDeliver } = resolveConsumeOptions(subject, options);
    // Not a name a caller's queue group can take by accident: `$` marks system names in NATS too.
    const durableGroup = { queue: `$durable.${stream.name}.${durable}`, maxDeliver };
    return new MemoryDurableSubscription(this.#open(subject, { queue: durableGroup.queue }), (message) =>
      this.#durableMessage(durableGroup, message.subject, message.data, 1),
    );
  }

  /** There are no streams in-process: nothing to delete. */
  deleteStream(_name: string): Promise<boolean> {
    return this.isClosed ? Promise.reject(closedError()) : Promise.resolve(false);
  }

  #open(subject: string, options: SubscribeOptions): BufferedSubscription {
    let route: Route | undefined;
    const subscription = new BufferedSubscription(subject, {
      detach: () => this.#removeRoute(route),
      drain: () => {
        // Routing is synchronous, so everything published before this call is already in the buffer.
        this.#removeRoute(route);
        return Promise.resolve();
      },
    });
    route = {
      subscription,
      tokens: splitSubject(subject),
      wildcard: hasWildcard(subject),
      queue: options.queue,
      max: options.max,
      delivered: 0,
    };
    this.#addRoute(route);
    return subscription;
  }

  request(subject: string, data: Payload | undefined, options: RequestOptions): Promise<BusMessage> {
    try {
      this.#assertOpen();
      assertPublishSubject(subject);
      assertRequestTimeout(options.timeoutMs);
      const bytes = this.#ownBytes(data);
      const inbox = `${this.#inboxPrefix}${++this.#inboxSequence}`;
      const answer = new Promise<BusMessage>((resolve, reject) => {
        const timer = setTimeout(() => {
          this.#requests.delete(inbox);
          reject(new BusError('timeout', `No answer on ${subject} within ${options.timeoutMs} ms`));
        }, options.timeoutMs);
        this.#requests.set(inbox, { resolve, reject, timer });
      });
      if (this.#route(subject, bytes, inbox) === 0) {
        this.#settleRequest(inbox)?.reject(new BusError('no_responders', `No subscriber on ${subject}`));
      }
      return answer;
    } catch (err) {
      return Promise.reject(err);
    }
  }

  flush(): Promise<void> {
    // Routing is synchronous: whatever was published is already in the subscribers' buffers.
    return this.isClosed ? Promise.reject(closedError()) : Promise.resolve();
  }

  async drain(): Promise<void> {
    if (this.#state !== 'open') return;
    this.#state = 'draining';
    for (const route of this.#allRoutes()) route.subscription.seal();
    this.#literal.clear();
    this.#wildcard.length = 0;
    await this.close();
  }

  async close(): Promise<void> {
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    for (const timer of this.#redeliveries) clearTimeout(timer);
    this.#redeliveries.clear();
    for (const route of this.#allRoutes()) route.subscription.discard();
    this.#literal.clear();
    this.#wildcard.length = 0;
    for (const inbox of [...this.#requests.keys()]) {
      this.#settleRequest(inbox)?.reject(new BusError('closed', 'The bus closed before an answer came'));
    }
  }

  /** Delivers to every matching subscription (one member per queue group). Returns how many got the message. */
  #route(subject: string, data: Uint8Array, reply: string | undefined): number {
    let recipients = 0;
    const request = this.#settleRequest(subject);
    if (request !== undefined) {
      request.resolve(new BusMessageImpl(subject, data, reply, this.#publishReply));
      recipients += 1;
    }
    let groups: Map<string, Route[]> | undefined;
    for (const route of this.#matching(subject)) {
      if (route.queue === undefined) {
        this.#deliver(route, subject, data, reply);
        recipients += 1;
      } else {
        groups ??= new Map();
        const members = groups.get(route.queue);
        if (members === undefined) groups.set(route.queue, [route]);
        else members.push(route);
      }
    }
    for (const [queue, members] of groups ?? []) {
      const cursor = this.#queueCursor.get(queue) ?? 0;
      this.#queueCursor.set(queue, cursor + 1);
      const chosen = members[cursor % members.length];
      if (chosen === undefined) continue;
      this.#deliver(chosen, subject, data, reply);
      recipients += 1;
    }
    return recipients;
  }

  #deliver(route: Route, subject: string, data: Uint8Array, reply: string | undefined): void {
    route.delivered += 1;
    route.subscription.push(new BusMessageImpl(subject, data, reply, this.#publishReply));
    if (route.max !== undefined && route.delivered >= route.max) {
      this.#removeRoute(route);
      route.subscription.seal();
    }
  }

  #durableMessage(group: DurableGroup, subject: string, data: Uint8Array, deliveryCount: number): DurableMessage {
    return new DurableMessageImpl(subject, data, deliveryCount, {
      ack: () => {},
      nak: (delayMs) => {
        // As on NATS: after its last delivery a message is not delivered again.
        if (group.maxDeliver !== -1 && deliveryCount >= group.maxDeliver) return;
        this.#redeliverLater(group, subject, data, deliveryCount + 1, delayMs ?? 0);
      },
    });
  }

  /** After `delayMs`, gives a nak'd message to one running consumer of its durable; none running: it is gone. */
  #redeliverLater(
    group: DurableGroup,
    subject: string,
    data: Uint8Array,
    deliveryCount: number,
    delayMs: number,
  ): void {
    if (this.#state !== 'open') return;
    const timer = setTimeout(() => {
      this.#redeliveries.delete(timer);
      const members = this.#matching(subject).filter((route) => route.queue === group.queue);
      const cursor = this.#queueCursor.get(group.queue) ?? 0;
      this.#queueCursor.set(group.queue, cursor + 1);
      members[cursor % Math.max(members.length, 1)]?.subscription.push(
        this.#durableMessage(group, subject, data, deliveryCount),
      );
    }, delayMs);
    // A pending redelivery never holds the process open: it would be lost at exit anyway.
    timer.unref();
    this.#redeliveries.add(timer);
  }

  /** A snapshot: delivery may remove routes (`max`) while we walk the result. */
  #matching(subject: string): Route[] {
    const matches = [...(this.#literal.get(subject) ?? [])];
    if (this.#wildcard.length > 0) {
      const tokens = splitSubject(subject);
      for (const route of this.#wildcard) if (tokensMatch(route.tokens, tokens)) matches.push(route);
    }
    return matches;
  }

  readonly #publishReply = (replySubject: string, data: Payload | undefined): void => {
    this.publish(replySubject, data);
  };

  #settleRequest(inbox: string): PendingRequest | undefined {
    const request = this.#requests.get(inbox);
    if (request === undefined) return undefined;
    this.#requests.delete(inbox);
    clearTimeout(request.timer);
    return request;
  }

  #addRoute(route: Route): void {
    if (route.wildcard) {
      this.#wildcard.push(route);
      return;
    }
    const subject = route.subscription.subject;
    const routes = this.#literal.get(subject);
    if (routes === undefined) this.#literal.set(subject, [route]);
    else routes.push(route);
  }

  #removeRoute(route: Route | undefined): void {
    if (route === undefined) return;
    const subject = route.subscription.subject;
    const routes = route.wildcard ? this.#wildcard : this.#literal.get(subject);
    if (routes === undefined) return;
    const index = routes.indexOf(route);
    if (index >= 0) routes.splice(index, 1);
    if (routes.length === 0 && !route.wildcard) this.#literal.delete(subject);
  }

  #allRoutes(): Route[] {
    return [...[...this.#literal.values()].flat(), ...this.#wildcard];
  }

  /**
   * Copies the payload once per publish: a publisher reusing its frame buffer must not change messages already
   * queued. Recipients share the copy and must treat `data` as read-only.
   */
  #ownBytes(data: Payload | undefined): Uint8Array {
    const bytes = typeof data === 'string' ? payloadBytes(data) : payloadBytes(data).slice();
    if (bytes.byteLength > MEMORY_BUS_MAX_PAYLOAD_BYTES) {
      throw new BusError(
        'payload_too_large',
        `Payload of ${bytes.byteLength} bytes exceeds the ${MEMORY_BUS_MAX_PAYLOAD_BYTES}-byte limit`,
      );
    }
    return bytes;
  }

  #assertOpen(): void {
    if (this.#state === 'closed') throw closedError();
  }
}

function closedError(): BusError {
  return new BusError('closed', 'The bus is closed');
}
