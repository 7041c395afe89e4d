/**
 * A SIP dialog (RFC 3261 §12): the state two user agents share for one call — Call-ID, tags, CSeq numbers, the
 * remote target and route set — and the requests made inside it. In-dialog requests go to the flow the dialog
 * was made on (the address and transport its INVITE came from or went to), with the route set as Route headers:
 * a trunk behind NAT is reached where it reached us (RFC 5626's idea, without its Outbound machinery).
 */
import { randomInt } from 'node:crypto';
import {
  header,
  headers,
  nameAddr,
  parseCSeq,
  tagOf,
  type HeaderList,
  type SipRequest,
  type SipResponse,
} from './message.ts';
import { newBranch } from './transactions.ts';
import type { Peer } from './transport.ts';

export interface LocalContact {
  /** The address the far end reaches us at (Via, Contact). */
  address: string;
  port: number;
}

export class Dialog {
  readonly callId: string;
  readonly localTag: string;
  remoteTag: string;
  /** Our From (as UAC) or To (as UAS) header value, with our tag. */
  readonly local: string;
  /** The far end's, with its tag. */
  remote: string;
  remoteTarget: string;
  routeSet: string[];
  localSeq: number;
  remoteSeq: number | undefined;
  readonly peer: Peer;
  readonly contact: LocalContact;

  private constructor(init: {
    callId: string;
    localTag: string;
    remoteTag: string;
    local: string;
    remote: string;
    remoteTarget: string;
    routeSet: string[];
    localSeq: number;
    remoteSeq: number | undefined;
    peer: Peer;
    contact: LocalContact;
  }) {
    this.callId = init.callId;
    this.localTag = init.localTag;
    this.remoteTag = init.remoteTag;
    this.local = init.local;
    this.remote = init.remote;
    this.remoteTarget = init.remoteTarget;
    this.routeSet = init.routeSet;
    this.localSeq = init.localSeq;
    this.remoteSeq = init.remoteSeq;
    this.peer = init.peer;
    this.contact = init.contact;
  }

  /** The dialog an INVITE we answer makes (§12.1.1). */
  static asServer(invite: SipRequest, localTag: string, peer: Peer, contact: LocalContact): Dialog {
    const from = header(invite, 'From')!;
    const contactUri = nameAddr(headers(invite, 'Contact')[0] ?? '')?.uri;
    return new Dialog({
      callId: header(invite, 'Call-ID')!,
      localTag,
      remoteTag: tagOf(from) ?? '',
      local: `${header(invite, 'To')!};tag=${localTag}`,
      remote: from,
      remoteTarget: contactUri ?? nameAddr(from)!.uri,
      routeSet: headers(invite, 'Record-Route').flatMap((v) => v.split(/,(?=\s*<)/).map((r) => r.trim())),
      localSeq: randomInt(1, 100_000),
      remoteSeq: parseCSeq(header(invite, 'CSeq')!)!.seq,
      peer,
      contact,
    });
  }

  /** The dialog a 2xx to our INVITE makes (§12.1.2). */
  static asClient(invite: SipRequest, response: SipResponse, peer: Peer, contact: LocalContact): Dialog {
    const to = header(response, 'To')!;
    const contactUri = nameAddr(headers(response, 'Contact')[0] ?? '')?.uri;
    return new Dialog({
      callId: header(invite, 'Call-ID')!,
      localTag: tagOf(header(invite, 'From'))!,
      remoteTag: tagOf(to) ?? '',
      local: header(invite, 'From')!,
      remote: to,
      remoteTarget: contactUri ?? invite.uri,
      routeSet: headers(response, 'Record-Route')
        .flatMap((v) => v.split(/,(?=\s*<)/).map((r) => r.trim()))
        .reverse(),
      localSeq: parseCSeq(header(invite, 'CSeq')!)!.seq,
      remoteSeq: undefined,
      peer,
      contact,
    });
  }

  /** The key the user agent files dialogs under: Call-ID and both tags. */
  get key(): string {
    return dialogKey(this.callId, this.localTag, this.remoteTag);
  }

  contactHeader(): string {
    return `<sip:parley@${hostPort(this.contact)};transport=${this.peer.transport}>`;
  }

  /** A new request inside the dialog (§12.2.1.1); `cseq` defaults to the next local sequence number. */
  request(method: string, extra: HeaderList = [], body?: { type: string; data: Buffer }, cseq?: number): SipRequest {
    const seq = cseq ?? ++this.localSeq;
    const list: HeaderList = [
      ['Via', viaHeader(this.peer, this.contact)],
      ['Max-Forwards', '70'],
      ['From', this.local],
      ['To', this.remote],
      ['Call-ID', this.callId],
      ['CSeq', `${seq} ${method}`],
      ...this.routeSet.map((route): [string, string] => ['Route', route]),
    ];
    if (method === 'INVITE' || method === 'REFER') list.push(['Contact', this.contactHeader()]);
    list.push(...extra);
    if (body) list.push(['Content-Type', body.type]);
    return { kind: 'request', method, uri: this.remoteTarget, headers: list, body: body?.data ?? Buffer.alloc(0) };
  }

  /**
   * Takes an in-dialog request's CSeq: false when it is older than the last one (§12.2.2: answered 500), which
   * a retransmission never is (the transaction layer absorbed those).
   */
  acceptRemoteSeq(request: SipRequest): boolean {
    const seq = parseCSeq(header(request, 'CSeq')!)!.seq;
    if (request.method === 'ACK' || request.method === 'CANCEL') return true;
    if (this.remoteSeq !== undefined && seq <= this.remoteSeq) return false;
    this.remoteSeq = seq;
    return true;
  }
}

export function dialogKey(callId: string, localTag: string, remoteTag: string): string {
  return `${callId}|${localTag}|${remoteTag}`;
}

export function hostPort(contact: LocalContact): string {
  return `${contact.address.includes(':') ? `[${contact.address}]` : contact.address}:${contact.port}`;
}

export function viaHeader(peer: Peer, contact: LocalContact, branch = newBranch()): string {
  return `SIP/2.0/${peer.transport.toUpperCase()} ${hostPort(contact)};branch=${branch};rport`;
}
