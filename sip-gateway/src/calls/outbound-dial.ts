/**
 * An outbound INVITE (docs/architecture.md §11): the callee through the trunk, its digest challenge answered once
 * (401/407), CANCEL at the ring timeout or when told, and the outcome handed to `DialEvents` — for a `v1.sip.dial`
 * (dialled-call.ts: `telephony` events and the media bridge) or a bridged transfer's new leg (bridged-transfer.ts).
 *
 *   180/183            → ringing (once)
 *   200                → answered; the call lives on as a SipCall (BYE later → completed)
 *   486, 600           → busy
 *   ring timeout       → CANCEL, then no_answer
 *   hangup while ringing (control) → CANCEL, then cancelled
 *   408, 480, 487 (not ours) → no_answer;  403, 404, 603, other 4xx/6xx → rejected;  5xx, no response → failed
 */
import { randomBytes } from 'node:crypto';
import type { SipTrunkTarget } from '@parley/engine/protocol';
import { sipCodecs, subjects } from '@parley/engine/protocol';
import type { Subscription } from '@parley/engine/bus';
import type { PortLease } from '../rtp/port-pool.ts';
import { digestAuthorization, parseChallenge } from '../sip/digest.ts';
import { Dialog, viaHeader, hostPort, type LocalContact } from '../sip/dialog.ts';
import { newBranch } from '../sip/transactions.ts';
import { ALLOWED_METHODS } from '../sip/user-agent.ts';
import { header, headers, type SipRequest, type SipResponse } from '../sip/message.ts';
import { negotiate, offerSdp, parseSdp, type Negotiated } from '../sip/sdp.ts';
import type { ClientTransaction } from '../sip/transactions.ts';
import type { Peer } from '../sip/transport.ts';
import type { GatewayContext } from './gateway-context.ts';

export type DialOutcome = 'busy' | 'no_answer' | 'rejected' | 'cancelled' | 'failed';

function outcomeOf(status: number, cancelledFor: 'no_answer' | 'cancelled' | undefined): DialOutcome {
  if (status === 487 && cancelledFor) return cancelledFor;
  if (status === 486 || status === 600) return 'busy';
  if (status === 408 || status === 480 || status === 487) return 'no_answer';
  if (status >= 500 && status < 600) return 'failed';
  return 'rejected';
}

/** Whom to INVITE, through which trunk. */
export interface DialTarget {
  /** The key of the leg among the gateway's pending ones (the call id, or the call id + `-transfer`). */
  key: string;
  /** The callee, E.164 or a user part; the Request-URI is `sip:<to>@<trunk host>:<port>`. */
  to: string;
  trunk: SipTrunkTarget;
  ringTimeoutMs: number;
  /** Listen on `v1.sip.<key>.control` for a hangup while ringing (dialled calls; a transfer's leg is not addressed). */
  control: boolean;
}

/** An answered leg: the dialog is confirmed (ACK sent); the port lease is now the receiver's to release. */
export interface AnsweredLeg {
  dialog: Dialog;
  /** Our side of the media, mirrored from the answer's direction. */
  negotiated: Negotiated;
  remote: { address: string; port: number };
  lease: PortLease;
  sipStatus: number;
}

export interface DialEvents {
  ringing(sipStatus: number): void;
  answered(leg: AnsweredLeg): void;
  /** Not answered; the port lease is already released. */
  failed(outcome: DialOutcome, sipStatus: number, reason: string): void;
}

export class OutboundDial {
  readonly #context: GatewayContext;
  readonly #target: DialTarget;
  readonly #events: DialEvents;
  readonly #lease: PortLease;
  readonly #peer: Peer;
  #invite: SipRequest | undefined;
  /** Where the trunk reaches us (Via, Contact, SDP). */
  #contact: LocalContact | undefined;
  #transaction: ClientTransaction | undefined;
  #ringTimer: NodeJS.Timeout | undefined;
  #control: Subscription | undefined;
  #rang = false;
  #provisional = false;
  #authenticated = false;
  #cancelledFor: 'no_answer' | 'cancelled' | undefined;
  #cancelSent = false;
  #done = false;
  readonly #sessionId = Date.now();

  constructor(context: GatewayContext, target: DialTarget, lease: PortLease, peer: Peer, events: DialEvents) {
    this.#context = context;
    this.#target = target;
    this.#events = events;
    this.#lease = lease;
    this.#peer = peer;
  }

  async start(): Promise<void> {
    const context = this.#context;
    const contact = await context.ua.contactFor(this.#peer);
    this.#contact = contact;
    const { trunk, to } = this.#target;
    const target = `sip:${to}@${hostPort({ address: trunk.host, port: trunk.port })}${trunk.transport === 'tcp' ? ';transport=tcp' : ''}`;
    const display = trunk.fromDisplayName ? `"${trunk.fromDisplayName.replace(/"/g, "'")}" ` : '';
    const sdp = offerSdp({
      address: contact.address,
      port: this.#lease.port,
      version: 1,
      sessionId: this.#sessionId,
      direction: 'sendrecv',
    });
    this.#invite = {
      kind: 'request',
      method: 'INVITE',
      uri: target,
      headers: [
        ['Via', viaHeader(this.#peer, contact)],
        ['Max-Forwards', '70'],
        ['From', `${display}<sip:${trunk.fromUser}@${trunk.host}>;tag=${context.ua.newTag()}`],
        ['To', `<sip:${to}@${trunk.host}>`],
        ['Call-ID', `${randomBytes(12).toString('hex')}@${contact.address}`],
        ['CSeq', '1 INVITE'],
        ['Contact', `<sip:parley@${hostPort(contact)};transport=${this.#peer.transport}>`],
        ['Allow', ALLOWED_METHODS.join(', ')],
        ['Content-Type', 'application/sdp'],
      ],
      body: Buffer.from(sdp),
    };
    context.pending.set(this.#target.key, {
      cancel: (reason) => this.cancel(reason === 'no_answer' ? 'no_answer' : 'cancelled'),
    });
    if (this.#target.control) {
      const control = context.bus.subscribe(subjects.sipCallControl(this.#target.key));
      this.#control = control;
      void (async () => {
        for await (const message of control) {
          try {
            const order = sipCodecs.control.decode(message.data);
            if (order.type === 'hangup') this.cancel('cancelled');
          } catch {
            // a bad order changes nothing
          }
        }
      })().catch(() => {});
    }
    this.#ringTimer = setTimeout(() => this.cancel('no_answer'), this.#target.ringTimeoutMs);
    this.#ringTimer.unref();
    this.#send(this.#invite);
  }

  /** CANCEL (once a provisional came, as §9.1 asks; else as soon as one does). */
  cancel(why: 'no_answer' | 'cancelled'): void {
    if (this.#done || this.#cancelledFor) return;
    this.#cancelledFor = why;
    if (this.#provisional) this.#sendCancel();
  }

  #send(invite: SipRequest): void {
    this.#transaction = this.#context.ua.request(invite, this.#peer, {
      response: (response) => this.#onResponse(invite, response),
      timeout: () => this.#finish(this.#cancelledFor ?? 'failed', 408, 'no response from the trunk'),
    });
  }

  #sendCancel(): void {
    if (this.#cancelSent || !this.#invite) return;
    this.#cancelSent = true;
    const invite = this.#transaction?.request ?? this.#invite;
    const cancel: SipRequest = {
      kind: 'request',
      method: 'CANCEL',
      uri: invite.uri,
      headers: [
        ['Via', headers(invite, 'Via')[0]!],
        ['Max-Forwards', '70'],
        ['From', header(invite, 'From')!],
        ['To', header(invite, 'To')!],
        ['Call-ID', header(invite, 'Call-ID')!],
        ['CSeq', `${header(invite, 'CSeq')!.split(/\s+/)[0]} CANCEL`],
      ],
      body: Buffer.alloc(0),
    };
    this.#context.ua.request(cancel, this.#peer, { response() {}, timeout() {} });
  }

  #onResponse(invite: SipRequest, response: SipResponse): void {
    if (this.#done) {
      // A 2xx retransmission (our ACK was lost) or a fork we do not want: ACK it; a stray fork is then hung up.
      if (response.status >= 200 && response.status < 300) this.#ackAndMaybeBye(invite, response);
      return;
    }
    const status = response.status;
    if (status < 200) {
      this.#provisional = true;
      if (this.#cancelledFor) this.#sendCancel();
      if ((status === 180 || status === 183) && !this.#rang) {
        this.#rang = true;
        this.#events.ringing(status);
      }
      return;
    }
    if (status < 300) return this.#answered(invite, response);
    if ((status === 401 || status === 407) && !this.#authenticated && this.#target.trunk.username) {
      const challenge = parseChallenge(
        header(response, status === 401 ? 'WWW-Authenticate' : 'Proxy-Authenticate') ?? '',
      );
      if (challenge) {
        this.#authenticated = true;
        const seq = Number(header(invite, 'CSeq')!.split(/\s+/)[0]) + 1;
        const retry: SipRequest = {
          ...invite,
          headers: [
            ...invite.headers.map(([name, value]): [string, string] => {
              if (name === 'Via') return [name, value.replace(/branch=[^;]+/, `branch=${newBranch()}`)];
              if (name === 'CSeq') return [name, `${seq} INVITE`];
              return [name, value];
            }),
            [
              status === 401 ? 'Authorization' : 'Proxy-Authorization',
              digestAuthorization(
                challenge,
                { username: this.#target.trunk.username, password: this.#target.trunk.password ?? '' },
                'INVITE',
                invite.uri,
              ),
            ],
          ],
        };
        this.#provisional = false;
        this.#cancelSent = false;
        this.#invite = retry;
        this.#send(retry);
        return;
      }
    }
    this.#finish(outcomeOf(status, this.#cancelledFor), status, response.reason);
  }

  /** The dialog the 2xx of this dialog's callee confirmed, once answered (a retransmitted 2xx is only ACKed). */
  #answeredTag: string | undefined;

  #ackAndMaybeBye(invite: SipRequest, response: SipResponse): void {
    const dialog = Dialog.asClient(invite, response, this.#peer, this.#contact!);
    this.#context.ua.ack2xx(dialog, Number(header(invite, 'CSeq')!.split(/\s+/)[0]));
    // The 2xx of the dialog that became the call is only a retransmission; any other is a fork we hang up.
    if (this.#answeredTag !== dialog.remoteTag) void this.#context.ua.requestInDialog(dialog, dialog.request('BYE'));
  }

  #answered(invite: SipRequest, response: SipResponse): void {
    const context = this.#context;
    const seq = Number(header(invite, 'CSeq')!.split(/\s+/)[0]);
    const dialog = Dialog.asClient(invite, response, this.#peer, this.#contact!);
    context.ua.ack2xx(dialog, seq);
    const answer = response.body.length > 0 ? parseSdp(response.body.toString('latin1')) : undefined;
    const negotiated = answer && negotiate(answer);
    if (!answer || !negotiated) {
      void context.ua.requestInDialog(dialog, dialog.request('BYE'));
      this.#finish('failed', 488, 'the answer has no PCMU or PCMA audio');
      return;
    }
    if (this.#cancelledFor) {
      // Answered as our CANCEL crossed it: the call is not wanted any more.
      void context.ua.requestInDialog(dialog, dialog.request('BYE'));
      this.#finish(this.#cancelledFor, response.status, 'answered after cancel');
      return;
    }
    this.#done = true;
    this.#answeredTag = dialog.remoteTag;
    this.#cleanup(false);
    // The answer's direction is the far end's; ours mirrors it.
    const ours = {
      ...negotiated,
      direction:
        negotiated.direction === 'recvonly'
          ? 'sendonly'
          : negotiated.direction === 'sendonly'
            ? 'recvonly'
            : negotiated.direction,
    } as Negotiated;
    this.#events.answered({
      dialog,
      negotiated: ours,
      remote: { address: answer.address, port: answer.port },
      lease: this.#lease,
      sipStatus: response.status,
    });
  }

  #finish(outcome: DialOutcome, sipStatus: number, reason: string): void {
    if (this.#done) return;
    this.#done = true;
    this.#cleanup(true);
    this.#events.failed(outcome, sipStatus, reason);
  }

  #cleanup(releasePort: boolean): void {
    if (this.#ringTimer) clearTimeout(this.#ringTimer);
    this.#control?.unsubscribe();
    this.#context.pending.delete(this.#target.key);
    if (releasePort) this.#lease.release();
  }
}
