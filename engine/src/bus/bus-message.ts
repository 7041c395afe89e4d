/**
 * The one BusMessage implementation both buses hand out, so `string()`, `json()` and `respond()` behave the same
 * whether the bytes came from a NATS socket or from another part of this process.
 */
import type { BusMessage, DurableMessage, Payload } from './bus.ts';
import { nakDelayMs } from './options.ts';

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder();
const EMPTY = new Uint8Array(0);

/** The bytes of a payload: strings as UTF-8, nothing as an empty array. Byte arrays are passed through, not copied. */
export function payloadBytes(payload: Payload | undefined): Uint8Array {
  if (payload === undefined) return EMPTY;
  return typeof payload === 'string' ? utf8Encoder.encode(payload) : payload;
}

/** Publishes an answer on a reply subject; the bus supplies it so answers get the bus's own checks and errors. */
export type ReplyPublisher = (replySubject: string, data: Payload | undefined) => void;

export class BusMessageImpl implements BusMessage {
  readonly subject: string;
  readonly data: Uint8Array;
  readonly reply?: string;
  readonly #publishReply: ReplyPublisher;

  constructor(subject: string, data: Uint8Array, reply: string | undefined, publishReply: ReplyPublisher) {
    this.subject = subject;
    this.data = data;
    if (reply !== undefined) this.reply = reply;
    this.#publishReply = publishReply;
  }

  string(): string {
    return utf8Decoder.decode(this.data);
  }

  json<T = unknown>(): T {
    return JSON.parse(this.string()) as T;
  }

  respond(data?: Payload): boolean {
    if (this.reply === undefined) return false;
    this.#publishReply(this.reply, data);
    return true;
  }
}

/** How a durable message's answer reaches what delivered it (the JetStream message, or the in-process bus). */
export interface DurableAnswer {
  ack(): void;
  /** @param delayMs undefined for at once, else whole milliseconds ≥ 1 */
  nak(delayMs: number | undefined): void;
}

/** Durable messages carry no reply subject of their own: the one NATS sets is the server's acknowledgement inbox. */
const NO_REPLY: ReplyPublisher = () => {};

/** The one DurableMessage implementation: the first answer counts, and answering never throws. */
export class DurableMessageImpl extends BusMessageImpl implements DurableMessage {
  readonly deliveryCount: number;
  readonly #answer: DurableAnswer;
  #answered = false;

  constructor(subject: string, data: Uint8Array, deliveryCount: number, answer: DurableAnswer) {
    super(subject, data, undefined, NO_REPLY);
    this.deliveryCount = deliveryCount;
    this.#answer = answer;
  }

  ack(): void {
    this.#give(() => this.#answer.ack());
  }

  nak(delayMs?: number): void {
    this.#give(() => this.#answer.nak(nakDelayMs(delayMs)));
  }

  #give(answer: () => void): void {
    if (this.#answered) return;
    this.#answered = true;
    try {
      answer();
    } catch {
      // An answer that cannot be sent (the connection closed) is an answer lost: the server's ack wait brings the
      // message back, which is what at-least-once delivery promises anyway.
    }
  }
}
