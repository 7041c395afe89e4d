/**
 * The user agent core (RFC 3261 §8, §12–§15): what the gateway does with each message the transport hands up.
 *
 * - Malformed: answered 400 (505 for another SIP version) when it is a request whose transaction can be named,
 *   else dropped; counted either way. No input reaches a `throw` that escapes this file.
 * - OPTIONS: 200 with Allow, Accept and Supported (trunks ping with it).
 * - INVITE without a To tag: a new call, handed to the gateway (`onInvite`). Inside a dialog: a re-INVITE,
 *   handed to the dialog's owner (hold and resume).
 * - CANCEL: 200, then the INVITE it names is ended 487 by its owner. BYE, ACK, NOTIFY inside a dialog: to its
 *   owner; outside any dialog: 481.
 * - Anything else: 405 with Allow (a method SIP defines) or 501.
 */
import { randomBytes } from 'node:crypto';
import { Dialog, dialogKey, hostPort, viaHeader, type LocalContact } from './dialog.ts';
import {
  header,
  headerValues,
  parseMessage,
  parseUri,
  responseTo,
  serialize,
  tagOf,
  type HeaderList,
  type SipMessage,
  type SipRequest,
  type SipResponse,
} from './message.ts';
import {
  TransactionLayer,
  type ClientCallbacks,
  type ClientTransaction,
  type ServerTransaction,
  type SipTimers,
} from './transactions.ts';
import type { SourceRateLimit } from './rate-limit.ts';
import { SipTransport, type Peer } from './transport.ts';

/** What we do, as the Allow header says. */
export const ALLOWED_METHODS = ['INVITE', 'ACK', 'BYE', 'CANCEL', 'OPTIONS', 'NOTIFY', 'REFER', 'INFO'] as const;
/** Methods SIP defines that we do not take outside what ALLOWED_METHODS covers: 405, not 501. */
const KNOWN_METHODS = new Set(['REGISTER', 'SUBSCRIBE', 'MESSAGE', 'PUBLISH', 'PRACK', 'UPDATE']);
/** Where SIP listens when a URI names no port (RFC 3261 §19.1.2). */
const SIP_DEFAULT_PORT = 5060;
/** Option tags we support (Require naming any other is refused 420). */
const SUPPORTED = new Set(['replaces', 'norefersub']);

export interface DialogOwner {
  /** The ACK of our 2xx (an INVITE's or a re-INVITE's). */
  ack(request: SipRequest): void;
  bye(transaction: ServerTransaction): void;
  reinvite(transaction: ServerTransaction): void;
  /** NOTIFY (REFER progress) and other in-dialog requests; answer them. */
  other(transaction: ServerTransaction): void;
}

export interface UserAgentHandlers {
  /** A dialog-creating INVITE. The handler answers it (its 100 Trying is already sent). */
  invite(transaction: ServerTransaction): void;
  /** A CANCEL of an INVITE still ringing here; the CANCEL itself has been answered 200. */
  cancel(invite: ServerTransaction): void;
}

export interface UserAgentStats {
  received: number;
  malformed: number;
  answered400: number;
  rateLimited: number;
  dialogs: number;
}

export class UserAgent {
  readonly transactions: TransactionLayer;
  readonly #transport: SipTransport;
  readonly #handlers: UserAgentHandlers;
  readonly #dialogs = new Map<string, { dialog: Dialog; owner: DialogOwner }>();
  #malformed = 0;
  #answered400 = 0;
  #received = 0;

  private constructor(transport: SipTransport, handlers: UserAgentHandlers, timers: SipTimers | undefined) {
    this.#transport = transport;
    this.#handlers = handlers;
    this.transactions = new TransactionLayer((peer, message) => this.send(peer, message), timers);
  }

  static async listen(
    host: string,
    port: number,
    handlers: UserAgentHandlers,
    timers?: SipTimers,
    limit?: SourceRateLimit,
  ): Promise<UserAgent> {
    let agent: UserAgent | undefined;
    const transport = await SipTransport.listen(host, port, (data, peer) => agent?.receive(data, peer), limit);
    agent = new UserAgent(transport, handlers, timers);
    return agent;
  }

  get port(): number {
    return this.#transport.port;
  }

  get stats(): UserAgentStats {
    return {
      received: this.#received,
      malformed: this.#malformed,
      answered400: this.#answered400,
      rateLimited: this.#transport.stats.rateLimited,
      dialogs: this.#dialogs.size,
    };
  }

  send(peer: Peer, message: SipMessage): void {
    this.#transport.send(peer, serialize(message));
  }

  /** Where the far end at `address` reaches us. */
  async contactFor(peer: Peer): Promise<LocalContact> {
    return { address: await this.#transport.localAddressFor(peer.address), port: this.port };
  }

  newTag(): string {
    return randomBytes(6).toString('hex');
  }

  addDialog(dialog: Dialog, owner: DialogOwner): void {
    this.#dialogs.set(dialog.key, { dialog, owner });
  }

  removeDialog(dialog: Dialog): void {
    this.#dialogs.delete(dialog.key);
  }

  /** Sends a request as a client transaction. */
  request(request: SipRequest, peer: Peer, callbacks: ClientCallbacks): ClientTransaction {
    return this.transactions.sendRequest(request, peer, callbacks);
  }

  /** Sends a request inside `dialog` and resolves with its final response, or undefined on timeout. */
  requestInDialog(dialog: Dialog, request: SipRequest): Promise<SipResponse | undefined> {
    return new Promise((resolve) => {
      this.request(request, this.#flowOf(dialog), {
        response: (response) => {
          if (response.status >= 200) resolve(response);
        },
        timeout: () => resolve(undefined),
      });
    });
  }

  /** The ACK of a 2xx to our INVITE (§13.2.2.4): a transaction of its own, inside the dialog. */
  ack2xx(dialog: Dialog, inviteSeq: number, extra: HeaderList = []): void {
    this.send(this.#flowOf(dialog), dialog.request('ACK', extra, undefined, inviteSeq));
  }

  /**
   * Where a request inside `dialog` goes: the flow the dialog came on; over TCP, once that connection has closed,
   * the far end's Contact (a TCP peer's source port is an ephemeral one nobody listens on).
   */
  #flowOf(dialog: Dialog): Peer {
    if (this.#transport.connected(dialog.peer)) return dialog.peer;
    const target = parseUri(dialog.remoteTarget);
    if (!target) return dialog.peer;
    return { transport: 'tcp', address: target.host.replace(/^\[|\]$/g, ''), port: target.port ?? SIP_DEFAULT_PORT };
  }

  async close(): Promise<void> {
    this.transactions.close();
    await this.#transport.close();
  }

  receive(data: Buffer, peer: Peer): void {
    this.#received += 1;
    const parsed = parseMessage(data, peer.transport === 'udp');
    if (!parsed.ok) {
      this.#malformed += 1;
      if (parsed.request) {
        this.#answered400 += 1;
        this.#reply(
          parsed.request,
          peer,
          parsed.status ?? 400,
          `${parsed.status === 505 ? 'Version Not Supported' : 'Bad Request'} (${parsed.why})`,
        );
      }
      return;
    }
    const message = parsed.message;
    if (message.kind === 'response') {
      this.transactions.receiveResponse(message);
      return;
    }
    this.#request(message, peer);
  }

  /** Answers statelessly: for requests that never make a transaction (malformed, loops). */
  #reply(request: SipRequest, peer: Peer, status: number, reason?: string, extra: HeaderList = []): void {
    this.send(peer, responseTo(request, status, { toTag: this.newTag(), headers: extra, ...(reason && { reason }) }));
  }

  #request(request: SipRequest, peer: Peer): void {
    const maxForwards = header(request, 'Max-Forwards');
    if (maxForwards === '0' && request.method !== 'ACK') {
      this.#reply(request, peer, 483);
      return;
    }
    const incoming = this.transactions.receiveRequest(request, peer);
    if (incoming.type === 'absorbed') return;
    if (incoming.type === 'ack') {
      this.#dialogOf(request)?.owner.ack(request);
      return;
    }
    const transaction = incoming.transaction;
    const answer = (status: number, extra: HeaderList = [], reason?: string) =>
      transaction.respond(
        responseTo(request, status, { toTag: this.newTag(), headers: extra, ...(reason && { reason }) }),
      );

    const unsupported = headerValues(request, 'Require').filter((tag) => !SUPPORTED.has(tag.toLowerCase()));
    if (unsupported.length > 0 && request.method !== 'CANCEL') {
      answer(420, [['Unsupported', unsupported.join(', ')]]);
      return;
    }
    const inDialog = tagOf(header(request, 'To')) !== undefined;
    switch (request.method) {
      case 'OPTIONS':
        answer(200, [
          ['Allow', ALLOWED_METHODS.join(', ')],
          ['Accept', 'application/sdp'],
          ['Supported', [...SUPPORTED].join(', ')],
        ]);
        return;
      case 'CANCEL': {
        const invite = this.transactions.inviteFor(request);
        if (!invite) {
          answer(481);
          return;
        }
        // §9.2: a CANCEL of an INVITE already answered is answered 200 and changes nothing.
        answer(200);
        if (invite.finalStatus === undefined) this.#handlers.cancel(invite);
        return;
      }
      case 'INVITE': {
        if (!inDialog) {
          this.#handlers.invite(transaction);
          return;
        }
        const found = this.#dialogOf(request);
        if (!found) return answer(481);
        if (!found.dialog.acceptRemoteSeq(request)) return answer(500, [], 'Server Internal Error (CSeq out of order)');
        found.owner.reinvite(transaction);
        return;
      }
      case 'BYE':
      case 'NOTIFY':
      case 'INFO':
      case 'REFER': {
        const found = inDialog ? this.#dialogOf(request) : undefined;
        if (!found) {
          // REFER outside a dialog is a method we do not take there.
          return request.method === 'REFER' ? answer(405, [['Allow', ALLOWED_METHODS.join(', ')]]) : answer(481);
        }
        if (!found.dialog.acceptRemoteSeq(request)) return answer(500, [], 'Server Internal Error (CSeq out of order)');
        if (request.method === 'BYE') found.owner.bye(transaction);
        else found.owner.other(transaction);
        return;
      }
      default:
        if (KNOWN_METHODS.has(request.method)) answer(405, [['Allow', ALLOWED_METHODS.join(', ')]]);
        else answer(501);
    }
  }

  #dialogOf(request: SipRequest): { dialog: Dialog; owner: DialogOwner } | undefined {
    const callId = header(request, 'Call-ID')!;
    const localTag = tagOf(header(request, 'To'));
    const remoteTag = tagOf(header(request, 'From')) ?? '';
    return localTag === undefined ? undefined : this.#dialogs.get(dialogKey(callId, localTag, remoteTag));
  }
}

export { hostPort, viaHeader };
