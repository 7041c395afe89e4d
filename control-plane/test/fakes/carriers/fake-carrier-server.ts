/**
 * What every carrier's contract fake shares: a real HTTP server on 127.0.0.1 at a free port, every request
 * recorded (method, path, query, form or JSON body, credentials), and faults a test injects by matching requests:
 * an answer of its choosing instead of the fake's own (`fail`), or a request held until the test releases it
 * (`hold`, to keep a change in flight while another request arrives). Each carrier's fake supplies the routes
 * that speak its API (carrier-b-fake.ts, …).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A body larger than this is refused: no carrier request of Parley's comes near it, so more is a client bug. */
const MAX_BODY_BYTES = 1024 * 1024;

export interface RecordedRequest {
  method: string;
  /** The path without the query. */
  path: string;
  query: Record<string, string>;
  /** Form fields (application/x-www-form-urlencoded) or the JSON body. */
  body: Record<string, unknown>;
  headers: IncomingMessage['headers'];
  /** user and password of HTTP basic authentication, when sent. */
  basicAuth: { user: string; password: string } | undefined;
}

export interface FakeAnswer {
  status: number;
  body: unknown;
}

export type RequestMatch = (request: RecordedRequest) => boolean;

/** The carrier-specific part of a fake: answers one request. */
export type FakeRoutes = (request: RecordedRequest) => FakeAnswer | Promise<FakeAnswer>;

export interface Hold {
  /** Settles when a matching request has arrived and is being held. */
  readonly reached: Promise<void>;
  /** Lets the held request (and any later matching one) through. */
  release(): void;
}

interface Fault {
  match: RequestMatch;
  answer: FakeAnswer;
  remaining: number;
}

export class FakeCarrierServer {
  readonly #server: Server;
  readonly #routes: FakeRoutes;
  readonly #faults: Fault[] = [];
  readonly #holds: { match: RequestMatch; gate: Promise<void>; arrived: () => void }[] = [];
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  #origin = '';

  private constructor(routes: FakeRoutes) {
    this.#routes = routes;
    this.#server = createServer((req, res) => {
      this.#handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) send(res, { status: 500, body: { message: `fake server bug: ${String(error)}` } });
        else res.destroy();
      });
    });
  }

  static async start(routes: FakeRoutes): Promise<FakeCarrierServer> {
    const fake = new FakeCarrierServer(routes);
    await new Promise<void>((resolve) => fake.#server.listen(0, '127.0.0.1', resolve));
    fake.#origin = `http://127.0.0.1:${(fake.#server.address() as AddressInfo).port}`;
    return fake;
  }

  /** `http://127.0.0.1:<port>`: the API base URL to configure. */
  get url(): string {
    return this.#origin;
  }

  /** Answers the next `times` matching requests with `answer` instead of the fake's own. */
  fail(match: RequestMatch, answer: FakeAnswer, times = 1): void {
    this.#faults.push({ match, answer, remaining: times });
  }

  /** Holds matching requests until released. */
  hold(match: RequestMatch): Hold {
    let release!: () => void;
    let arrived!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const reached = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const entry = { match, gate, arrived };
    this.#holds.push(entry);
    return {
      reached,
      release: () => {
        this.#holds.splice(this.#holds.indexOf(entry), 1);
        release();
      },
    };
  }

  /** Recorded requests that match. */
  received(match: RequestMatch): RecordedRequest[] {
    return this.requests.filter(match);
  }

  async close(): Promise<void> {
    for (const hold of [...this.#holds]) hold.arrived();
    await new Promise<void>((resolve) => {
      this.#server.closeAllConnections();
      this.#server.close(() => resolve());
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const request = await record(req);
    this.requests.push(request);
    for (const hold of this.#holds.filter((h) => h.match(request))) {
      hold.arrived();
      await hold.gate;
    }
    const fault = this.#faults.find((f) => f.remaining > 0 && f.match(request));
    if (fault) {
      fault.remaining -= 1;
      send(res, fault.answer);
      return;
    }
    send(res, await this.#routes(request));
  }
}

async function record(req: IncomingMessage): Promise<RecordedRequest> {
  const url = new URL(req.url ?? '/', 'http://fake.invalid');
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > MAX_BODY_BYTES) throw new Error('request body too large');
    parts.push(part);
  }
  const text = Buffer.concat(parts).toString('utf8');
  const type = req.headers['content-type'] ?? '';
  let body: Record<string, unknown> = {};
  if (type.startsWith('application/x-www-form-urlencoded')) body = Object.fromEntries(new URLSearchParams(text));
  else if (type.startsWith('application/json') && text) body = JSON.parse(text) as Record<string, unknown>;
  return {
    method: req.method ?? 'GET',
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    body,
    headers: req.headers,
    basicAuth: parseBasic(req.headers.authorization),
  };
}

function parseBasic(header: string | undefined): { user: string; password: string } | undefined {
  const match = header ? /^Basic\s+(\S+)$/i.exec(header) : null;
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

function send(res: ServerResponse, answer: FakeAnswer): void {
  const text = answer.body === undefined ? '' : JSON.stringify(answer.body);
  res.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
