/**
 * The one BusMessage implementation both buses hand out, so `string()`, `json()` and `respond()` behave the same
 * whether the bytes came from a NATS socket or from another part of this process.
 */
import type { BusMessage, Payload } from './bus.ts';

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
