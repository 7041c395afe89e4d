/**
 * What the fake vendor servers share: listening on an ephemeral loopback port, reading bodies, answering JSON,
 * pacing streamed bodies, and noticing when a client hangs up mid-answer (so tests can assert that an abort
 * really closed the connection).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** A body larger than this is refused with 413: no test sends more, so more is a client bug. */
export const FAKE_MAX_BODY_BYTES = 32 * 1024 * 1024;

export interface RunningServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  server: Server;
  close(): Promise<void>;
}

/** Starts `handler` on 127.0.0.1 at a free port. A handler that throws answers 500 (and the test sees it). */
export async function startHttp(
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void> | void,
): Promise<RunningServer> {
  const server = createServer((req, res) => {
    Promise.resolve(handler(req, res)).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `fake server bug: ${String(err)}` } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The whole request body; rejects past FAKE_MAX_BODY_BYTES. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > FAKE_MAX_BODY_BYTES) throw new Error('request body too large');
    parts.push(part);
  }
  return Buffer.concat(parts);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** How one streamed answer ended, as the server saw it. */
export interface StreamOutcome {
  /** True when the client closed the connection before the server finished the body. */
  clientClosedEarly: boolean;
  /** When the server handed the last byte of a complete body to the socket (performance.now()). */
  finishedAt?: number;
}

/**
 * Writes `pieces` one by one with `delayMs` before each, stopping early when the client hangs up.
 * @param stallAfter stop writing after this many pieces and keep the connection open (a stalled upstream)
 * @param dropAfter destroy the socket after this many pieces (an upstream that crashed mid-answer)
 */
export async function writePaced(
  req: IncomingMessage,
  res: ServerResponse,
  pieces: readonly (string | Uint8Array)[],
  options: { delayMs?: number; stallAfter?: number; dropAfter?: number } = {},
): Promise<StreamOutcome> {
  const closed = whenClientCloses(req, res);
  for (const [i, piece] of pieces.entries()) {
    if (options.stallAfter !== undefined && i >= options.stallAfter) return closed;
    if (options.delayMs !== undefined && options.delayMs > 0) await sleep(options.delayMs);
    if (options.dropAfter !== undefined && i >= options.dropAfter) {
      res.socket?.destroy();
      return { clientClosedEarly: false };
    }
    if (res.destroyed || res.writableEnded) return closed;
    res.write(piece);
  }
  res.end();
  const finishedAt = performance.now();
  return { ...(await closed), finishedAt };
}

/** Resolves when the exchange is over: whether the client left before the body was complete. */
export function whenClientCloses(req: IncomingMessage, res: ServerResponse): Promise<StreamOutcome> {
  return new Promise((resolve) => {
    const settle = () => resolve({ clientClosedEarly: !res.writableFinished });
    // A kept-alive socket carries many exchanges: its listener goes when this exchange ends, or they pile up.
    res.once('close', () => {
      req.socket.off('close', settle);
      settle();
    });
    req.socket.once('close', settle);
  });
}

/** A promise with its resolve function, for "tell the test when this happens". */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
