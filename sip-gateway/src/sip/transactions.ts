/**
 * The transaction layer (RFC 3261 §17, with RFC 6026's Accepted states): retransmissions and timeouts over UDP,
 * matching of retransmitted requests and of responses, and the ACK of a non-2xx final response. Over TCP the
 * retransmission timers (A, E, G) never run and the wait states (D, I, J, K) end at once.
 *
 * Server side: a new request makes a transaction the user agent answers once; its retransmissions are answered
 * again from here and never reach the user agent. An INVITE gets 100 Trying at once. A 2xx to an INVITE ends the
 * transaction's part (Accepted): retransmitting the 2xx until the ACK comes is the dialog's job (dialog-2xx.ts
 * `retransmit2xx`), because the ACK of a 2xx is a transaction of its own.
 *
 * Client side: a request is retransmitted (Timer A/E) until a response, and given up as 408 (Timer B/F).
 */
import { randomBytes } from 'node:crypto';
import {
  header,
  headers,
  parseCSeq,
  tagOf,
  topVia,
  responseTo,
  type HeaderList,
  type SipRequest,
  type SipResponse,
  type SipMessage,
} from './message.ts';
import type { Peer } from './transport.ts';

/** RFC 3261's timer base values, ms: T1 the round-trip estimate, T2 the retransmission cap, T4 a message's life. */
export interface SipTimers {
  t1: number;
  t2: number;
  t4: number;
}
export const RFC3261_TIMERS: SipTimers = { t1: 500, t2: 4_000, t4: 5_000 };
/** Timer D: how long a completed INVITE client transaction absorbs retransmitted final responses over UDP, ms. */
const TIMER_D_MS = 32_000;
/** RFC 3261's magic cookie: a branch starting with it is unique per transaction (§8.1.1.7). */
export const BRANCH_COOKIE = 'z9hG4bK';

export function newBranch(): string {
  return `${BRANCH_COOKIE}${randomBytes(8).toString('hex')}`;
}

type Send = (peer: Peer, message: SipMessage) => void;

function after(ms: number, run: () => void): NodeJS.Timeout {
  const timer = setTimeout(run, ms);
  timer.unref();
  return timer;
}

/** One request we must answer. */
export class ServerTransaction {
  readonly request: SipRequest;
  readonly peer: Peer;
  readonly key: string;
  /** The final status sent, once sent. */
  finalStatus: number | undefined;
  #last: SipResponse | undefined;
  #timers: NodeJS.Timeout[] = [];
  readonly #layer: TransactionLayer;

  constructor(layer: TransactionLayer, key: string, request: SipRequest, peer: Peer) {
    this.#layer = layer;
    this.key = key;
    this.request = request;
    this.peer = peer;
  }

  get terminated(): boolean {
    return !this.#layer.hasServer(this.key);
  }

  /** Sends a response; provisional ones as often as wanted, one final one (later finals are ignored). */
  respond(response: SipResponse): void {
    if (this.finalStatus !== undefined || this.terminated) return;
    this.#last = response;
    this.#layer.send(this.peer, response);
    if (response.status < 200) return;
    this.finalStatus = response.status;
    const { t1, t2 } = this.#layer.timers;
    const udp = this.peer.transport === 'udp';
    if (this.request.method === 'INVITE' && response.status < 300) {
      // Accepted (RFC 6026): retransmitted INVITEs are absorbed while the dialog retransmits its 2xx.
      this.#timers.push(after(64 * t1, () => this.#end()));
    } else if (this.request.method === 'INVITE') {
      // Completed: Timer G retransmits the response until the ACK (udp); Timer H gives up waiting for it.
      if (udp) {
        let interval = t1;
        const resend = () => {
          if (this.terminated) return;
          this.#layer.send(this.peer, response);
          interval = Math.min(interval * 2, t2);
          this.#timers.push(after(interval, resend));
        };
        this.#timers.push(after(interval, resend));
      }
      this.#timers.push(after(64 * t1, () => this.#end()));
    } else {
      // Timer J: absorb retransmissions of the request for 64·T1 over UDP.
      this.#timers.push(after(udp ? 64 * t1 : 0, () => this.#end()));
    }
  }

  /** A retransmission of the request arrived: repeat the last response. */
  retransmitted(): void {
    if (
      this.#last &&
      !(this.request.method === 'INVITE' && (this.finalStatus ?? 0) >= 200 && (this.finalStatus ?? 0) < 300)
    )
      this.#layer.send(this.peer, this.#last);
  }

  /** The ACK of our non-2xx final response: Confirmed, then Timer I. */
  acknowledged(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers = [after(this.peer.transport === 'udp' ? this.#layer.timers.t4 : 0, () => this.#end())];
  }

  #end(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers = [];
    this.#layer.dropServer(this.key);
  }

  /** Ends it now (the gateway is closing). */
  dispose(): void {
    this.#end();
  }
}

export interface ClientCallbacks {
  /** Every response (provisional, final, and for an INVITE every 2xx retransmission). */
  response(response: SipResponse): void;
  /** No final response in time (Timer B/F), or the transport failed. */
  timeout(): void;
}

/** One request we sent. */
export class ClientTransaction {
  readonly request: SipRequest;
  readonly peer: Peer;
  readonly key: string;
  state: 'calling' | 'proceeding' | 'accepted' | 'completed' = 'calling';
  #timers: NodeJS.Timeout[] = [];
  #retransmit: NodeJS.Timeout | undefined;
  readonly #layer: TransactionLayer;
  readonly #callbacks: ClientCallbacks;

  constructor(layer: TransactionLayer, key: string, request: SipRequest, peer: Peer, callbacks: ClientCallbacks) {
    this.#layer = layer;
    this.key = key;
    this.request = request;
    this.peer = peer;
    this.#callbacks = callbacks;
  }

  start(): void {
    const { t1, t2 } = this.#layer.timers;
    const invite = this.request.method === 'INVITE';
    this.#layer.send(this.peer, this.request);
    if (this.peer.transport === 'udp') {
      let interval = t1;
      const resend = () => {
        if (this.state !== 'calling' && (invite || this.state !== 'proceeding')) return;
        this.#layer.send(this.peer, this.request);
        // Timer A doubles without a cap; Timer E caps at T2 (and runs at T2 once proceeding).
        interval = invite ? interval * 2 : Math.min(interval * 2, t2);
        this.#retransmit = after(this.state === 'proceeding' ? t2 : interval, resend);
      };
      this.#retransmit = after(interval, resend);
    }
    this.#timers.push(
      after(64 * t1, () => {
        if (this.state === 'calling' || this.state === 'proceeding') {
          this.#end();
          this.#callbacks.timeout();
        }
      }),
    );
  }

  receive(response: SipResponse): void {
    const invite = this.request.method === 'INVITE';
    if (response.status < 200) {
      if (this.state === 'calling') this.state = 'proceeding';
      if (this.state === 'proceeding') this.#callbacks.response(response);
      if (invite) this.#stopRetransmit();
      return;
    }
    if (invite && response.status < 300) {
      if (this.state === 'calling' || this.state === 'proceeding') {
        this.#settle();
        this.state = 'accepted';
        // Timer M: further 2xx (retransmissions, forks) still reach the user agent, which ACKs each.
        this.#timers.push(after(64 * this.#layer.timers.t1, () => this.#end()));
      }
      if (this.state === 'accepted') this.#callbacks.response(response);
      return;
    }
    if (invite) this.#layer.send(this.peer, this.#ack(response));
    if (this.state === 'completed' || this.state === 'accepted') return;
    this.#settle();
    this.state = 'completed';
    const udp = this.peer.transport === 'udp';
    this.#timers.push(after(udp ? (invite ? TIMER_D_MS : this.#layer.timers.t4) : 0, () => this.#end()));
    this.#callbacks.response(response);
  }

  /** The ACK of a non-2xx final response (§17.1.1.3): same branch, the response's To. */
  #ack(response: SipResponse): SipRequest {
    const list: HeaderList = [
      ['Via', headers(this.request, 'Via')[0]!],
      ['Max-Forwards', '70'],
      ['From', header(this.request, 'From')!],
      ['To', header(response, 'To')!],
      ['Call-ID', header(this.request, 'Call-ID')!],
      ['CSeq', `${parseCSeq(header(this.request, 'CSeq')!)!.seq} ACK`],
    ];
    for (const route of headers(this.request, 'Route')) list.push(['Route', route]);
    return { kind: 'request', method: 'ACK', uri: this.request.uri, headers: list, body: Buffer.alloc(0) };
  }

  #stopRetransmit(): void {
    if (this.#retransmit) clearTimeout(this.#retransmit);
    this.#retransmit = undefined;
  }

  #settle(): void {
    this.#stopRetransmit();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers = [];
  }

  #end(): void {
    this.#settle();
    this.#layer.dropClient(this.key);
  }

  dispose(): void {
    this.#end();
  }
}

export type Incoming =
  | { type: 'new'; transaction: ServerTransaction }
  /** Answered from the transaction (a retransmission, or the ACK of our non-2xx). */
  | { type: 'absorbed' }
  /** An ACK of a 2xx, or a stray ACK: the dialog's business. */
  | { type: 'ack' };

export class TransactionLayer {
  readonly timers: SipTimers;
  readonly #send: Send;
  readonly #servers = new Map<string, ServerTransaction>();
  readonly #clients = new Map<string, ClientTransaction>();

  constructor(send: Send, timers: SipTimers = RFC3261_TIMERS) {
    this.#send = send;
    this.timers = timers;
  }

  send(peer: Peer, message: SipMessage): void {
    this.#send(peer, message);
  }

  get size(): { server: number; client: number } {
    return { server: this.#servers.size, client: this.#clients.size };
  }

  hasServer(key: string): boolean {
    return this.#servers.has(key);
  }

  dropServer(key: string): void {
    this.#servers.delete(key);
  }

  dropClient(key: string): void {
    this.#clients.delete(key);
  }

  /** The server transaction key of a request (§17.2.3), ACK matching its INVITE. */
  serverKey(request: SipRequest, method = request.method === 'ACK' ? 'INVITE' : request.method): string {
    const via = topVia(request)!;
    const branch = via.params.branch ?? '';
    if (branch.startsWith(BRANCH_COOKIE)) return `${branch}|${via.host}:${via.port ?? ''}|${method}`;
    // RFC 2543 peers: no unique branch, so the dialog-ish identity stands in.
    const cseq = parseCSeq(header(request, 'CSeq')!)!;
    return `${header(request, 'Call-ID')}|${cseq.seq}|${tagOf(header(request, 'From'))}|${via.raw}|${method}`;
  }

  /** The INVITE transaction a CANCEL is for (same branch), while it lives. */
  inviteFor(cancel: SipRequest): ServerTransaction | undefined {
    return this.#servers.get(this.serverKey(cancel, 'INVITE'));
  }

  receiveRequest(request: SipRequest, peer: Peer): Incoming {
    const key = this.serverKey(request);
    const existing = this.#servers.get(key);
    if (request.method === 'ACK') {
      if (existing && existing.finalStatus !== undefined && existing.finalStatus >= 300) {
        existing.acknowledged();
        return { type: 'absorbed' };
      }
      return { type: 'ack' };
    }
    if (existing) {
      existing.retransmitted();
      return { type: 'absorbed' };
    }
    const transaction = new ServerTransaction(this, key, request, peer);
    this.#servers.set(key, transaction);
    if (request.method === 'INVITE') transaction.respond(responseTo(request, 100));
    return { type: 'new', transaction };
  }

  /** Sends `request` (its top Via carries a fresh branch) as a client transaction. */
  sendRequest(request: SipRequest, peer: Peer, callbacks: ClientCallbacks): ClientTransaction {
    const via = topVia(request)!;
    const key = `${via.params.branch}|${request.method}`;
    const transaction = new ClientTransaction(this, key, request, peer, callbacks);
    this.#clients.set(key, transaction);
    transaction.start();
    return transaction;
  }

  /** Routes a response to its client transaction; false when none matches (a stray, dropped). */
  receiveResponse(response: SipResponse): boolean {
    const via = topVia(response);
    const cseq = parseCSeq(header(response, 'CSeq') ?? '');
    if (!via || !cseq) return false;
    const transaction = this.#clients.get(`${via.params.branch}|${cseq.method}`);
    if (!transaction) return false;
    transaction.receive(response);
    return true;
  }

  close(): void {
    for (const transaction of [...this.#servers.values()]) transaction.dispose();
    for (const transaction of [...this.#clients.values()]) transaction.dispose();
  }
}
