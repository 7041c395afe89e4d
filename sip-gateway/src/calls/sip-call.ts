/**
 * One answered call leg, inbound or outbound (docs/architecture.md §11): its dialog, its RTP session and its media
 * bridge, and every way it can end. However it ends — BYE either way, the engine's hangup or refusal, the ACK of
 * our 2xx never coming, RTP silent too long, a transfer done, the gateway closing — `end` runs once: the bridge
 * says `stop`, the RTP port goes back to the pool, the dialog and the control subscription go.
 *
 * A transfer goes by REFER when the configuration allows it, else by a bridged new leg (bridged-transfer.ts): once
 * that leg answers, the two are partners — each one's audio and keys go to the other instead of the engine, and
 * the end of either ends both.
 */
import type { PacingClock } from '@parley/engine/audio';
import type { Bus, Subscription } from '@parley/engine/bus';
import { SIP_TRANSFER_TIMEOUT_MS, sipCodecs, subjects } from '@parley/engine/protocol';
import { MediaBridge } from '../bridge/media-bridge.ts';
import type { PortLease } from '../rtp/port-pool.ts';
import { RtpSession } from '../rtp/rtp-session.ts';
import type { Dialog } from '../sip/dialog.ts';
import { header, parseUri, responseTo, type SipRequest, type SipResponse } from '../sip/message.ts';
import {
  answerSdp,
  negotiate,
  offerSdp,
  parseSdp,
  weSend,
  type Direction,
  type MediaDescription,
  type Negotiated,
} from '../sip/sdp.ts';
import type { ServerTransaction } from '../sip/transactions.ts';
import type { DialogOwner, UserAgent } from '../sip/user-agent.ts';
import type { TelephonyReporter } from './telephony-events.ts';

/** How often a live leg checks that RTP still arrives, ms. */
const RTP_CHECK_INTERVAL_MS = 1_000;

export interface SipCallOptions {
  ua: UserAgent;
  bus: Bus;
  clock: PacingClock;
  gatewayId: string;
  callId: string;
  dialog: Dialog;
  lease: PortLease;
  negotiated: Negotiated;
  remote: { address: string; port: number };
  referEnabled: boolean;
  /** Places the new leg of a transfer when REFER is not allowed; without it such a transfer fails. */
  bridgedTransfer?: (call: SipCall, to: string) => Promise<TransferResult>;
  /** Listen on `v1.sip.<callId>.control` (default true; a transfer's second leg is nobody's to address). */
  control?: boolean;
  /**
   * The INVITE carried no SDP (a "late offer", RFC 3261 §13.2.1): our 200 carries the offer, its ACK the answer.
   * Until the answer, `negotiated` is our first choice and no RTP is sent.
   */
  offerInAck?: boolean;
  /** RTP silent this long (while the peer is not on hold) ends the call, ms. */
  rtpTimeoutMs: number;
  /** Outbound legs report their end as `telephony` events; inbound legs end through the engine's own events. */
  telephony: TelephonyReporter | undefined;
  log: (event: string, detail?: Record<string, unknown>, level?: 'info' | 'warn' | 'error') => void;
  onEnded: (call: SipCall) => void;
}

/** How a transfer went, as the engine's `transfer_result` says it. */
export interface TransferResult {
  ok: boolean;
  sipStatus?: number;
  reason: string;
}

export class SipCall implements DialogOwner {
  readonly callId: string;
  readonly dialog: Dialog;
  readonly rtp: RtpSession;
  readonly bridge: MediaBridge;
  readonly #options: SipCallOptions;
  #sessionVersion = 1;
  readonly #sessionId = Date.now();
  #direction: Direction;
  #negotiated: Negotiated;
  #control: Subscription | undefined;
  #awaitingAck: { seq: number; stop: () => void } | undefined;
  #rtpCheck: NodeJS.Timeout;
  #ended = false;
  #endReason: string | undefined;
  #transferring = false;
  /** The REFER's NOTIFY did not come in time. */
  #referTimer: NodeJS.Timeout | undefined;
  /** The other leg of a bridged transfer, once it answered: audio and keys go there, not to the engine. */
  #partner: SipCall | undefined;
  readonly #endListeners: (() => void)[] = [];
  /** Our last 2xx carried an offer: the ACK brings the answer. */
  #awaitingAnswer: boolean;

  constructor(options: SipCallOptions) {
    this.#options = options;
    this.callId = options.callId;
    this.dialog = options.dialog;
    this.#negotiated = options.negotiated;
    this.#direction = options.negotiated.direction;
    this.#awaitingAnswer = options.offerInAck ?? false;
    this.bridge = new MediaBridge(options.bus, options.callId, {
      play: (samples) => this.rtp.send(samples),
      mark: (name) => this.rtp.mark(name),
      clear: () => this.rtp.clear(),
      sendDigits: (digits) => this.rtp.sendDigits(digits),
      hangup: (reason) => this.hangup(reason),
      transfer: (to) => void this.transfer(to),
    });
    this.rtp = new RtpSession(options.lease, {
      codec: options.negotiated.codec,
      payloadType: options.negotiated.payloadType,
      telephoneEvent: options.negotiated.telephoneEvent,
      remote: options.remote,
      sending: weSend(options.negotiated.direction),
      clock: options.clock,
      onAudio: (samples) => (this.#partner ? this.#partner.rtp.send(samples) : this.bridge.audio(samples)),
      onDtmf: (digit) => this.#dtmf(digit),
      onMark: (name) => this.bridge.markPlayed(name),
    });
    this.#rtpCheck = setInterval(() => this.#checkRtp(), RTP_CHECK_INTERVAL_MS);
    this.#rtpCheck.unref();
    if (options.control === false) return;
    const control = options.bus.subscribe(subjects.sipCallControl(options.callId));
    this.#control = control;
    void (async () => {
      for await (const message of control) {
        try {
          const order = sipCodecs.control.decode(message.data);
          if (order.type === 'hangup') this.hangup(order.reason);
          else void this.transfer(order.to);
        } catch (error) {
          options.log('bad call control', { callId: options.callId, error: String(error) }, 'warn');
        }
      }
    })().catch(() => {});
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Why it ended, once it has. */
  get endReason(): string | undefined {
    return this.#endReason;
  }

  /** Our SDP as it stands (the answer we gave, or for re-offers, our current view). */
  localSdp(address: string): Buffer {
    const options = {
      address,
      port: this.rtp.port,
      version: this.#sessionVersion,
      sessionId: this.#sessionId,
      direction: this.#direction,
    };
    return Buffer.from(this.#awaitingAnswer ? offerSdp(options) : answerSdp(options, this.#negotiated));
  }

  /**
   * Sends our 2xx to an INVITE (or re-INVITE) and retransmits it (T1 doubling to T2) until its ACK; without an
   * ACK in 64·T1 the call is over (§13.3.1.4): BYE.
   */
  send2xx(transaction: ServerTransaction, response: SipResponse): void {
    transaction.respond(response);
    const { t1, t2 } = this.#options.ua.transactions.timers;
    const seq = Number(header(transaction.request, 'CSeq')!.split(/\s+/)[0]);
    let interval = t1;
    let timer: NodeJS.Timeout | undefined;
    const udp = this.dialog.peer.transport === 'udp';
    const resend = () => {
      this.#options.ua.send(this.dialog.peer, response);
      interval = Math.min(interval * 2, t2);
      timer = setTimeout(resend, interval).unref();
    };
    if (udp) timer = setTimeout(resend, interval).unref();
    const giveUp = setTimeout(() => {
      this.#awaitingAck = undefined;
      if (timer) clearTimeout(timer);
      this.hangup('no ACK for our 2xx');
    }, 64 * t1).unref();
    this.#awaitingAck = {
      seq,
      stop: () => {
        if (timer) clearTimeout(timer);
        clearTimeout(giveUp);
      },
    };
  }

  ack(request: SipRequest): void {
    const seq = Number(header(request, 'CSeq')!.split(/\s+/)[0]);
    if (!this.#awaitingAck || this.#awaitingAck.seq !== seq) return;
    this.#awaitingAck.stop();
    this.#awaitingAck = undefined;
    if (!this.#awaitingAnswer) return;
    this.#awaitingAnswer = false;
    const answer = request.body.length > 0 ? parseSdp(request.body.toString('latin1')) : undefined;
    const negotiated = answer && negotiate(answer);
    if (!answer || !negotiated) return this.hangup('no usable SDP answer in the ACK');
    this.#apply(answer, negotiated);
  }

  /** Takes a new offer's or answer's address, codec and direction (hold, resume, a late answer). */
  #apply(sdp: MediaDescription, negotiated: Negotiated): void {
    this.#negotiated = negotiated;
    this.#direction = negotiated.direction;
    this.rtp.update(
      { address: sdp.address === '0.0.0.0' ? this.rtp.remote.address : sdp.address, port: sdp.port },
      negotiated.codec,
      negotiated.payloadType,
      negotiated.telephoneEvent,
      weSend(negotiated.direction),
    );
  }

  bye(transaction: ServerTransaction): void {
    transaction.respond(responseTo(transaction.request, 200));
    this.#end('remote_bye', 'completed');
  }

  /** A re-INVITE: hold (sendonly/inactive), resume, or a new address. */
  reinvite(transaction: ServerTransaction): void {
    const request = transaction.request;
    if (this.#ended) return transaction.respond(responseTo(request, 481));
    if (this.#awaitingAck) return transaction.respond(responseTo(request, 491));
    if (request.body.length > 0) {
      const offer = parseSdp(request.body.toString('latin1'));
      const negotiated = offer && negotiate(offer);
      if (!offer || !negotiated) return transaction.respond(responseTo(request, 488));
      this.#apply(offer, negotiated);
      this.#options.log('re-INVITE', { callId: this.callId, direction: negotiated.direction });
    } else {
      // A re-INVITE without an offer asks for ours; the answer comes in the ACK.
      this.#awaitingAnswer = true;
      this.#direction = 'sendrecv';
    }
    this.#sessionVersion += 1;
    const response = responseTo(request, 200, {
      headers: [
        ['Contact', this.dialog.contactHeader()],
        ['Content-Type', 'application/sdp'],
      ],
      body: this.localSdp(this.dialog.contact.address),
    });
    this.send2xx(transaction, response);
  }

  /**
   * NOTIFY of a REFER's progress; INFO with a key press (application/dtmf-relay `Signal=5`, or application/dtmf),
   * which some PBXs send instead of RFC 4733 events; a REFER from the far end is refused.
   */
  other(transaction: ServerTransaction): void {
    const request = transaction.request;
    if (request.method === 'REFER') return transaction.respond(responseTo(request, 403));
    transaction.respond(responseTo(request, 200));
    if (request.method === 'INFO') {
      const type = (header(request, 'Content-Type') ?? '').toLowerCase();
      const body = request.body.toString('latin1');
      const key = type.startsWith('application/dtmf-relay')
        ? /^Signal\s*=\s*([0-9*#A-Da-d])\s*$/m.exec(body)?.[1]
        : type.startsWith('application/dtmf')
          ? /^\s*([0-9*#A-Da-d])\s*$/.exec(body)?.[1]
          : undefined;
      if (key) this.#dtmf(key.toUpperCase());
      return;
    }
    if (request.method !== 'NOTIFY' || !this.#transferring) return;
    const frag = /^SIP\/2\.0 (\d{3})/.exec(request.body.toString('latin1'))?.[1];
    if (!frag || Number(frag) < 200) return;
    this.#transferring = false;
    clearTimeout(this.#referTimer);
    if (Number(frag) < 300) {
      this.bridge.transferResult({ ok: true, sipStatus: Number(frag), reason: 'referred' });
      this.#options.telephony?.report(this.callId, 'transferred');
      this.hangup('transferred');
    } else {
      this.#transferFailed({ ok: false, sipStatus: Number(frag), reason: 'the transfer target did not answer' });
    }
  }

  /** Our end of the call: BYE, then the end. Idempotent. */
  hangup(reason: string): void {
    if (this.#ended) return;
    const bye = this.dialog.request('BYE', [['Reason', `SIP;cause=200;text="${reason.replace(/"/g, "'")}"`]]);
    void this.#options.ua.requestInDialog(this.dialog, bye);
    this.#end(reason, reason === 'transferred' ? undefined : 'completed');
  }

  /**
   * Moves the far end to `to`: by REFER when its configuration allows it, else by a bridged new leg. The engine
   * hears how it went (`transfer_result`); a failed transfer leaves the call as it was.
   */
  async transfer(to: string): Promise<void> {
    if (this.#ended || this.#partner) return;
    if (this.#transferring) {
      this.#options.log('transfer ignored: one is under way', { callId: this.callId });
      return;
    }
    if (!this.#options.referEnabled) {
      if (!this.#options.bridgedTransfer)
        return this.#transferFailed({ ok: false, reason: 'this leg cannot place a new one' });
      this.#transferring = true;
      const result = await this.#options.bridgedTransfer(this, to);
      this.#transferring = false;
      // Success is the partners' relay (relayWith), which has said so already.
      if (!result.ok) this.#transferFailed(result);
      return;
    }
    const target =
      to.startsWith('sip:') || to.startsWith('sips:')
        ? to
        : `sip:${to}@${parseUri(this.dialog.remoteTarget)?.host ?? this.dialog.peer.address}`;
    this.#transferring = true;
    this.#referTimer = setTimeout(() => {
      if (!this.#transferring) return;
      this.#transferring = false;
      this.#transferFailed({ ok: false, sipStatus: 408, reason: 'no NOTIFY of the transfer came' });
    }, SIP_TRANSFER_TIMEOUT_MS).unref();
    const response = await this.#options.ua.requestInDialog(
      this.dialog,
      this.dialog.request('REFER', [
        ['Refer-To', `<${target}>`],
        ['Referred-By', `<sip:parley@${this.dialog.contact.address}>`],
      ]),
    );
    if ((!response || response.status >= 300) && this.#transferring) {
      this.#transferring = false;
      clearTimeout(this.#referTimer);
      this.#transferFailed({ ok: false, sipStatus: response?.status ?? 408, reason: 'the far end refused the REFER' });
    }
  }

  #transferFailed(result: TransferResult): void {
    this.#options.log(
      'transfer failed',
      { callId: this.callId, sipStatus: result.sipStatus, reason: result.reason },
      'warn',
    );
    this.bridge.transferResult(result);
  }

  /**
   * A bridged transfer's new leg answered: the engine is told and leaves (its bridge stops), and from now on this
   * leg's audio and keys go to `partner` and back. The call is no longer the engine's: orders on its control subject
   * (the control plane hanging up the AI call it ended) no longer reach it; the end of either leg ends both.
   */
  relayWith(partner: SipCall, sipStatus: number): void {
    if (this.#ended) return;
    this.#partner = partner;
    this.bridge.transferResult({ ok: true, sipStatus, reason: 'bridged' });
    this.bridge.stop('transferred');
    this.rtp.clear();
    this.#control?.unsubscribe();
    this.#control = undefined;
    this.#options.telephony?.report(this.callId, 'transferred');
  }

  /** Runs `listener` once this leg has ended (at once if it has). */
  whenEnded(listener: () => void): void {
    if (this.#ended) listener();
    else this.#endListeners.push(listener);
  }

  #dtmf(digit: string): void {
    if (this.#partner) this.#partner.rtp.sendDigits(digit);
    else this.bridge.dtmf(digit);
  }

  /** The gateway is closing: BYE and free everything. */
  close(): void {
    this.hangup('gateway_shutdown');
  }

  #checkRtp(): void {
    const peerSends = this.#direction === 'sendrecv' || this.#direction === 'recvonly';
    if (peerSends && performance.now() - this.rtp.lastReceivedAt > this.#options.rtpTimeoutMs)
      this.hangup('rtp_timeout');
  }

  #end(reason: string, status: 'completed' | undefined): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#endReason = reason;
    clearInterval(this.#rtpCheck);
    clearTimeout(this.#referTimer);
    this.#awaitingAck?.stop();
    this.#awaitingAck = undefined;
    this.bridge.stop(reason);
    this.rtp.close();
    this.#control?.unsubscribe();
    this.#control = undefined;
    this.#options.ua.removeDialog(this.dialog);
    // A relayed leg reported `transferred` already: its call record is over.
    if (status && !this.#partner) this.#options.telephony?.report(this.callId, status, { reason });
    this.#options.log('call ended', { callId: this.callId, reason, rtp: this.rtp.stats, bridge: this.bridge.stats });
    this.#options.onEnded(this);
    for (const listener of this.#endListeners.splice(0)) listener();
    this.#partner?.hangup('the other leg of the transfer hung up');
  }
}
