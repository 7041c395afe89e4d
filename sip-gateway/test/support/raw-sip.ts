/**
 * A bare SIP endpoint for tests that need to do what SIPp scenarios cannot easily: send exact bytes (malformed
 * messages), withhold an ACK, re-INVITE for hold, CANCEL at a chosen moment. It writes messages as text and reads
 * every datagram that comes back.
 */
import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';

export interface Received {
  at: number;
  text: string;
  /** The status of a response, or the method of a request. */
  status?: number;
  method?: string;
}

export class RawSip {
  readonly socket: Socket;
  readonly received: Received[] = [];
  readonly #target: number;
  #listeners = new Set<() => void>();

  private constructor(socket: Socket, target: number) {
    this.socket = socket;
    this.#target = target;
    socket.on('message', (data) => {
      const text = data.toString('latin1');
      const status = /^SIP\/2\.0 (\d{3})/.exec(text)?.[1];
      const method = /^([A-Z]+) \S+ SIP\/2\.0/.exec(text)?.[1];
      this.received.push({
        at: performance.now(),
        text,
        ...(status && { status: Number(status) }),
        ...(method && { method }),
      });
      for (const listener of [...this.#listeners]) listener();
    });
  }

  static async open(target: number): Promise<RawSip> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return new RawSip(socket, target);
  }

  get port(): number {
    return this.socket.address().port;
  }

  send(message: string | Buffer): void {
    this.socket.send(typeof message === 'string' ? Buffer.from(message, 'latin1') : message, this.#target, '127.0.0.1');
  }

  /** Resolves with the first received message after index `from` matching `predicate`. */
  waitFor(predicate: (m: Received) => boolean, timeoutMs = 5_000, from = 0): Promise<Received> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.received.slice(from).find(predicate);
        if (!found) return;
        this.#listeners.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        this.#listeners.delete(check);
        reject(
          new Error(
            `no matching SIP message in ${timeoutMs} ms; got ${this.received.map((m) => m.status ?? m.method).join(', ')}`,
          ),
        );
      }, timeoutMs);
      this.#listeners.add(check);
      check();
    });
  }

  close(): void {
    this.socket.close();
  }
}

export function header(text: string, name: string): string | undefined {
  return new RegExp(`^${name}:[ \\t]*(.*)$`, 'im').exec(text)?.[1]?.trim();
}

/** A dialog's worth of identity for hand-written requests. */
export class RawCall {
  readonly callId = `${randomBytes(8).toString('hex')}@raw.test`;
  readonly fromTag = randomBytes(4).toString('hex');
  toTag: string | undefined;
  cseq = 1;
  readonly #sip: RawSip;
  readonly #to: string;

  constructor(sip: RawSip, to = '+14155550123') {
    this.#sip = sip;
    this.#to = to;
  }

  branch(): string {
    return `z9hG4bK${randomBytes(6).toString('hex')}`;
  }

  request(
    method: string,
    options: { branch?: string; cseq?: number; body?: string; contentType?: string; headers?: string[] } = {},
  ): string {
    const body = options.body ?? '';
    const port = this.#sip.port;
    return [
      `${method} sip:${this.#to}@127.0.0.1 SIP/2.0`,
      `Via: SIP/2.0/UDP 127.0.0.1:${port};branch=${options.branch ?? this.branch()}`,
      'Max-Forwards: 70',
      `From: "Raw" <sip:+15550100@127.0.0.1:${port}>;tag=${this.fromTag}`,
      `To: <sip:${this.#to}@127.0.0.1>${this.toTag ? `;tag=${this.toTag}` : ''}`,
      `Call-ID: ${this.callId}`,
      `CSeq: ${options.cseq ?? this.cseq} ${method}`,
      `Contact: <sip:raw@127.0.0.1:${port}>`,
      ...(options.headers ?? []),
      ...(body ? [`Content-Type: ${options.contentType ?? 'application/sdp'}`] : []),
      `Content-Length: ${Buffer.byteLength(body, 'latin1')}`,
      '',
      body,
    ].join('\r\n');
  }

  sdp(rtpPort: number, direction = 'sendrecv', version = 1): string {
    return [
      'v=0',
      `o=raw 1 ${version} IN IP4 127.0.0.1`,
      's=-',
      'c=IN IP4 127.0.0.1',
      't=0 0',
      `m=audio ${rtpPort} RTP/AVP 8 0 101`,
      'a=rtpmap:8 PCMA/8000',
      'a=rtpmap:0 PCMU/8000',
      'a=rtpmap:101 telephone-event/8000',
      `a=${direction}`,
      '',
    ].join('\r\n');
  }
}
