/**
 * The seam between the engine and the websocket library that carries carrier media streams (docs/architecture.md §6): the
 * engine speaks only these interfaces, so the `ws` implementation (ws-media-server.ts) can give way to
 * uWebSockets.js (faster, but it needs glibc 2.38) without touching a transport.
 *
 * The shape follows what both libraries share: a router decides at the HTTP upgrade whether a path is served at
 * all; a served connection is a socket of text messages with a close code, a count of bytes waiting to be written
 * (backpressure), and a hard `terminate`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Close codes the media server sends or reports (RFC 6455 §7.4.1). */
export const CLOSE_CODES = {
  /** The call ended. */
  normal: 1000,
  /** The engine is shutting down. */
  goingAway: 1001,
  /** The peer spoke something that is not its protocol at all (e.g. a start with a media format we cannot play). */
  unsupported: 1003,
  /** Reported, never sent: the connection vanished without a close frame (reset, lost, missed heartbeats). */
  abnormal: 1006,
  /** The stream's token was refused (unknown, expired, reused, tampered), or the stream never said `start`. */
  policy: 1008,
  /** A single message over the size bound. */
  tooBig: 1009,
} as const;

/** A request to open a media stream, as the router sees it before anything is upgraded. */
export interface MediaRequest {
  /** The URL path, without the query string (e.g. `/media/carrier-b/<token>`). */
  path: string;
  /** The query string, without `?`; empty when there is none. */
  query: string;
  remoteAddress: string | undefined;
}

export interface MediaSocketListener {
  /** One text message. Binary messages are handed over as `binary: true` with the bytes as latin1 text. */
  message(data: string, binary: boolean): void;
  /** The connection is gone: the close code the peer sent, or CLOSE_CODES.abnormal when it sent none. */
  closed(code: number, reason: string): void;
}

export interface MediaSocket {
  readonly remoteAddress: string | undefined;
  /** Bytes handed to `send` and not yet written to the network: a far end that stops reading makes this grow. */
  readonly bufferedBytes: number;
  /** False once closing has begun, from either side. */
  readonly open: boolean;
  /**
   * Starts delivering messages. Call it synchronously in the router's handler: messages are not queued for a
   * listener that comes later.
   */
  listen(listener: MediaSocketListener): void;
  /** Sends one text message; ignored once the socket is no longer open (answers false then). Never blocks. */
  send(text: string): boolean;
  /** Closes with a code and a reason (at most 123 bytes of UTF-8; longer is cut). Idempotent. */
  close(code: number, reason: string): void;
  /** Drops the connection at once, without a close handshake. */
  terminate(): void;
}

/**
 * Decides, at the HTTP upgrade, what serves a path: a handler that takes the upgraded socket, or undefined to
 * answer 404 and upgrade nothing (a path that is not a media stream costs no websocket).
 */
export type MediaRouter = (request: MediaRequest) => ((socket: MediaSocket) => void) | undefined;

export interface MediaServerOptions {
  /** TCP port; 0 picks a free one (see `MediaServer.port`). */
  port: number;
  /** Address to bind; all interfaces by default. */
  host?: string;
  router: MediaRouter;
  /** Largest single message, bytes; larger closes the connection with CLOSE_CODES.tooBig. */
  maxMessageBytes?: number;
  /** How often each connection is pinged; a connection that missed the previous pong is terminated. */
  pingIntervalMs?: number;
  /**
   * Plain HTTP requests (not upgrades) offered first to this; it answers true when it took the request (the
   * engine's /metrics). Requests it leaves get 426: this port is for media streams.
   */
  plainRequest?: (request: IncomingMessage, response: ServerResponse) => boolean;
}

export interface MediaServer {
  /** The port listened on (the real one when 0 was asked for). */
  readonly port: number;
  /** Open connections. */
  readonly connections: number;
  /** Stops listening and closes every open connection with CLOSE_CODES.goingAway. */
  close(): Promise<void>;
}
