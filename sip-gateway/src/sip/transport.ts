/**
 * SIP over UDP and TCP on one port (RFC 3261 §18). UDP: one datagram, one message. TCP: a byte stream cut into
 * messages at their Content-Length; a connection whose framing breaks (no blank line within the size bound, a
 * Content-Length that is not a number) is closed, since nothing after it can be trusted. Every source is rate
 * limited before its bytes are parsed. Nothing here knows transactions or dialogs: bytes in, bytes out, by peer.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import { MAX_MESSAGE_BYTES } from './message.ts';
import { SourceRateLimit } from './rate-limit.ts';

export type SipTransportName = 'udp' | 'tcp';

/** Where a message came from, or goes to. */
export interface Peer {
  transport: SipTransportName;
  address: string;
  port: number;
}

/** TCP connections open at once, at most: each costs a socket; a trunk uses one or a few. */
export const MAX_TCP_CONNECTIONS = 1_000;
/** A TCP connection silent this long is closed, ms: SIP keep-alives (CRLF) come every 30 s or so. */
export const TCP_IDLE_TIMEOUT_MS = 300_000;
/** How long connecting to a trunk over TCP may take, ms. */
const TCP_CONNECT_TIMEOUT_MS = 5_000;

export function peerKey(peer: Peer): string {
  return `${peer.transport}:${peer.address}:${peer.port}`;
}

export interface SipTransportStats {
  received: number;
  rateLimited: number;
  tcpConnections: number;
}

export class SipTransport {
  readonly #udp: dgram.Socket;
  readonly #tcp: net.Server;
  readonly #connections = new Map<string, net.Socket>();
  readonly #limit: SourceRateLimit;
  readonly #onMessage: (data: Buffer, peer: Peer) => void;
  readonly #advertised = new Map<string, string>();
  readonly #host: string;
  #port = 0;
  #received = 0;

  private constructor(host: string, onMessage: (data: Buffer, peer: Peer) => void, limit: SourceRateLimit) {
    this.#host = host;
    this.#limit = limit;
    this.#onMessage = onMessage;
    this.#udp = dgram.createSocket({ type: host.includes(':') ? 'udp6' : 'udp4' });
    this.#tcp = net.createServer((socket) => this.#accept(socket));
    this.#tcp.maxConnections = MAX_TCP_CONNECTIONS;
  }

  /** Binds UDP and TCP on `port` (0: one free port both can take). */
  /** @param limit per-source flood control; SIP_SOURCE_RATE_PER_S and SIP_SOURCE_BURST by default */
  static async listen(
    host: string,
    port: number,
    onMessage: (data: Buffer, peer: Peer) => void,
    limit: SourceRateLimit = new SourceRateLimit(),
  ): Promise<SipTransport> {
    for (let attempt = 0; ; attempt += 1) {
      const transport = new SipTransport(host, onMessage, limit);
      try {
        await transport.#bind(port);
        return transport;
      } catch (error) {
        await transport.close();
        // With port 0 the UDP port chosen may be taken on TCP: try another.
        if (port !== 0 || attempt >= 10) throw error;
      }
    }
  }

  async #bind(port: number): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#udp.once('error', reject);
      this.#udp.bind(port, this.#host, () => {
        this.#udp.off('error', reject);
        resolve();
      });
    });
    this.#port = this.#udp.address().port;
    this.#udp.on('message', (data, info) =>
      this.#receive(data, { transport: 'udp', address: info.address, port: info.port }),
    );
    this.#udp.on('error', () => {}); // ICMP unreachable and the like: UDP has no connection to lose
    await new Promise<void>((resolve, reject) => {
      this.#tcp.once('error', reject);
      this.#tcp.listen(this.#port, this.#host, () => {
        this.#tcp.off('error', reject);
        resolve();
      });
    });
    this.#tcp.on('error', () => {});
  }

  get port(): number {
    return this.#port;
  }

  get stats(): SipTransportStats {
    return { received: this.#received, rateLimited: this.#limit.dropped, tcpConnections: this.#connections.size };
  }

  /**
   * The address the far end reaches us at, for Via, Contact and SDP: the bound host, or when bound to every
   * interface, the local address the system routes `peer` from (a connected UDP socket tells it without sending).
   */
  async localAddressFor(address: string): Promise<string> {
    if (this.#host !== '0.0.0.0' && this.#host !== '::') return this.#host;
    const known = this.#advertised.get(address);
    if (known) return known;
    const probe = dgram.createSocket(address.includes(':') ? 'udp6' : 'udp4');
    try {
      const local = await new Promise<string>((resolve, reject) => {
        probe.once('error', reject);
        probe.connect(9, address, () => resolve(probe.address().address));
      });
      this.#advertised.set(address, local);
      return local;
    } catch {
      return '127.0.0.1';
    } finally {
      probe.close();
    }
  }

  /** Whether a TCP connection to `peer` is open (UDP: always true, there is nothing to lose). */
  connected(peer: Peer): boolean {
    if (peer.transport === 'udp') return true;
    const socket = this.#connections.get(peerKey(peer));
    return socket !== undefined && !socket.destroyed;
  }

  /** Sends `data` to `peer`: a datagram, or over the TCP connection to it (opened when there is none). */
  send(peer: Peer, data: Buffer): void {
    if (peer.transport === 'udp') {
      this.#udp.send(data, peer.port, peer.address, () => {});
      return;
    }
    const key = peerKey(peer);
    let socket = this.#connections.get(key);
    if (!socket || socket.destroyed) {
      socket = net.connect({ host: peer.address, port: peer.port, timeout: TCP_CONNECT_TIMEOUT_MS });
      socket.once('connect', () => socket!.setTimeout(TCP_IDLE_TIMEOUT_MS));
      this.#track(socket, peer);
    }
    socket.write(data);
  }

  async close(): Promise<void> {
    for (const socket of this.#connections.values()) socket.destroy();
    this.#connections.clear();
    await Promise.all([
      new Promise<void>((resolve) => {
        try {
          this.#udp.close(() => resolve());
        } catch {
          resolve();
        }
      }),
      new Promise<void>((resolve) => (this.#tcp.listening ? this.#tcp.close(() => resolve()) : resolve())),
    ]);
  }

  #receive(data: Buffer, peer: Peer): void {
    if (!this.#limit.take(peer.address)) return;
    this.#received += 1;
    // A keep-alive (RFC 5626 CRLF) or stray bytes shorter than any request: nothing to answer.
    if (data.length < 16) return;
    try {
      this.#onMessage(data, peer);
    } catch {
      // The layer above answers what it can; an exception here must never take the gateway down.
    }
  }

  #accept(socket: net.Socket): void {
    const address = socket.remoteAddress ?? '';
    const port = socket.remotePort ?? 0;
    socket.setTimeout(TCP_IDLE_TIMEOUT_MS);
    this.#track(socket, { transport: 'tcp', address: address.replace(/^::ffff:/, ''), port });
  }

  #track(socket: net.Socket, peer: Peer): void {
    const key = peerKey(peer);
    this.#connections.set(key, socket);
    let buffer = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      for (;;) {
        while (buffer.length > 0 && (buffer[0] === 0x0d || buffer[0] === 0x0a)) buffer = buffer.subarray(1);
        const end = buffer.indexOf('\r\n\r\n');
        if (end < 0) {
          if (buffer.length > MAX_MESSAGE_BYTES) socket.destroy();
          return;
        }
        const head = buffer.subarray(0, end).toString('latin1');
        const match = /^(?:content-length|l)[ \t]*:[ \t]*(\S*)/im.exec(head);
        const length = match ? Number(match[1]) : 0;
        if (!Number.isSafeInteger(length) || length < 0 || end + 4 + length > MAX_MESSAGE_BYTES) {
          socket.destroy();
          return;
        }
        if (buffer.length < end + 4 + length) return;
        const message = buffer.subarray(0, end + 4 + length);
        buffer = buffer.subarray(end + 4 + length);
        this.#receive(Buffer.from(message), peer);
      }
    });
    socket.on('timeout', () => socket.destroy());
    socket.on('error', () => {});
    socket.on('close', () => {
      if (this.#connections.get(key) === socket) this.#connections.delete(key);
    });
  }
}
