/**
 * The media server on `ws` (docs/architecture.md §6): a plain Node HTTP server whose upgrades are routed by path, each served
 * connection wrapped as a MediaSocket. Heartbeats find connections that vanished without a close (a carrier whose
 * network went away keeps no TCP promise): a connection that misses a pong is terminated, which its transport sees
 * as a drop.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import {
  CLOSE_CODES,
  type MediaServer,
  type MediaServerOptions,
  type MediaSocket,
  type MediaSocketListener,
} from './media-server.ts';

/**
 * Largest message, bytes: a carrier's biggest chunk (Exotel allows 100 KB of PCM, 137 KB as base64) with room to
 * spare; nothing legitimate comes near 1 MiB, and the bound keeps one peer from holding megabytes of our memory.
 */
export const MEDIA_MAX_MESSAGE_BYTES = 1024 * 1024;
/** Heartbeat period, ms: a dead connection is found within two periods (30 s), well inside a carrier's own timeouts. */
export const MEDIA_PING_INTERVAL_MS = 15_000;
/** Longest close reason RFC 6455 allows, bytes (a control frame carries 125, minus the 2-byte code). */
const MAX_CLOSE_REASON_BYTES = 123;

export async function startWsMediaServer(options: MediaServerOptions): Promise<MediaServer> {
  const http = createServer((req, res) => {
    if (options.plainRequest?.(req, res)) return;
    res
      .writeHead(426, { 'content-type': 'text/plain', connection: 'close' })
      .end('media streams only: open a websocket\n');
  });
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: options.maxMessageBytes ?? MEDIA_MAX_MESSAGE_BYTES,
    perMessageDeflate: false,
    // Text that is not UTF-8 is a malformed message for the transport to count, not a reason to drop the call.
    skipUTF8Validation: true,
  });
  const alive = new WeakMap<WebSocket, boolean>();

  http.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'ws://media.invalid');
    const handler = options.router({
      path: url.pathname,
      query: url.search.slice(1),
      remoteAddress: socket.remoteAddress,
    });
    if (!handler) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      alive.set(ws, true);
      ws.on('pong', () => alive.set(ws, true));
      handler(new WsMediaSocket(ws, socket.remoteAddress));
    });
  });

  const heartbeat = setInterval(() => {
    for (const ws of wss.clients) {
      if (alive.get(ws) === false) {
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, options.pingIntervalMs ?? MEDIA_PING_INTERVAL_MS);
  heartbeat.unref();

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const { port } = http.address() as AddressInfo;

  return {
    port,
    get connections() {
      return wss.clients.size;
    },
    async close() {
      clearInterval(heartbeat);
      for (const ws of wss.clients) ws.close(CLOSE_CODES.goingAway, 'media server shutting down');
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
      // Peers that ignore the close frame are cut off rather than waited for.
      for (const ws of wss.clients) ws.terminate();
    },
  };
}

class WsMediaSocket implements MediaSocket {
  readonly remoteAddress: string | undefined;
  readonly #socket: WebSocket;
  #listening = false;

  constructor(ws: WebSocket, remoteAddress: string | undefined) {
    this.#socket = ws;
    this.remoteAddress = remoteAddress;
    // `ws` reports protocol errors (an oversized or broken frame) here and then closes; the close is what counts.
    ws.on('error', () => {});
  }

  get bufferedBytes(): number {
    return this.#socket.bufferedAmount;
  }

  get open(): boolean {
    return this.#socket.readyState === this.#socket.OPEN;
  }

  listen(listener: MediaSocketListener): void {
    if (this.#listening) throw new Error('a media socket has one listener');
    this.#listening = true;
    this.#socket.on('message', (data: RawData, binary: boolean) => {
      listener.message(toBuffer(data).toString(binary ? 'latin1' : 'utf8'), binary);
    });
    this.#socket.on('close', (code: number, reason: Buffer) => listener.closed(code, reason.toString('utf8')));
  }

  send(text: string): boolean {
    if (!this.open) return false;
    this.#socket.send(text);
    return true;
  }

  close(code: number, reason: string): void {
    if (this.#socket.readyState === this.#socket.CLOSING || this.#socket.readyState === this.#socket.CLOSED) return;
    this.#socket.close(code, clip(reason));
  }

  terminate(): void {
    this.#socket.terminate();
  }
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** `reason` cut to what a close frame carries, on a character boundary. */
function clip(reason: string): string {
  let out = reason;
  while (Buffer.byteLength(out) > MAX_CLOSE_REASON_BYTES) out = out.slice(0, -1);
  return out;
}
