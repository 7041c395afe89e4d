/**
 * An INVITE from a trunk (docs/architecture.md §11): check its offer, take an RTP port, ask the control plane who
 * answers it (`v1.sip.inbound`), then answer 200 with our SDP and open the media bridge with the engine's token —
 * or refuse with the status the control plane chose (503 when it did not answer in time). A CANCEL at any point
 * before the 200 ends it 487; an engine call dispatched meanwhile is told `stop` at once, so it ends cleanly.
 */
import { sipCodecs, subjects, type SipInboundReply } from '@parley/engine/protocol';
import { MediaBridge } from '../bridge/media-bridge.ts';
import type { PortLease } from '../rtp/port-pool.ts';
import { Dialog } from '../sip/dialog.ts';
import { header, nameAddr, parseUri, responseTo } from '../sip/message.ts';
import { negotiate, OFFER_TELEPHONE_EVENT_PT, parseSdp, type Negotiated } from '../sip/sdp.ts';
import type { ServerTransaction } from '../sip/transactions.ts';
import { ALLOWED_METHODS } from '../sip/user-agent.ts';
import type { Peer } from '../sip/transport.ts';
import { bridgeTransfer, type TransferRoute } from './bridged-transfer.ts';
import type { GatewayContext } from './gateway-context.ts';
import { SipCall } from './sip-call.ts';

/** A user part that is a phone number: digits, optionally with a leading +, visual separators allowed. */
const PHONE_USER = /^\+?[0-9][0-9\-.() ]{4,30}$/;

export function phoneOrUser(user: string | undefined): string {
  if (!user) return '';
  if (!PHONE_USER.test(user)) return user;
  const digits = user.replace(/[^0-9]/g, '');
  return `+${digits}`;
}

/**
 * The dialled number of an INVITE: its Request-URI's user — unless that is not a phone number and the To user is.
 * A trunk we REGISTERed with sends its calls to our Contact (`sip:<username>@<gateway>`), the number then only in To.
 */
export function dialledNumber(requestUser: string | undefined, toUser: string | undefined): string {
  if (requestUser && PHONE_USER.test(requestUser)) return phoneOrUser(requestUser);
  if (toUser && PHONE_USER.test(toUser)) return phoneOrUser(toUser);
  return phoneOrUser(requestUser ?? toUser);
}

/** What a late-offer call holds until the ACK's answer: no address to send to (port 0), our first codec. */
const LATE_OFFER_REMOTE = { address: '0.0.0.0', port: 0 };
const LATE_OFFER_CHOICE = {
  codec: 'PCMU',
  payloadType: 0,
  telephoneEvent: OFFER_TELEPHONE_EVENT_PT,
  direction: 'sendrecv',
} as const satisfies Negotiated;

/**
 * Where an inbound call's bridged transfer goes: the configuration's trunk when the control plane named it, else
 * back where the INVITE came from, presenting the dialled number.
 */
function transferRouteOf(reply: SipInboundReply & { ok: true }, source: Peer, dialled: string): TransferRoute {
  if (reply.trunk)
    return {
      trunk: reply.trunk,
      peer: { transport: reply.trunk.transport, address: reply.trunk.host, port: reply.trunk.port },
    };
  return {
    trunk: { host: source.address, port: source.port, transport: source.transport, fromUser: dialled || 'parley' },
    peer: source,
  };
}

export async function answerInvite(context: GatewayContext, transaction: ServerTransaction): Promise<void> {
  const request = transaction.request;
  const toTag = context.ua.newTag();
  const refuse = (status: number, reason?: string, extra: [string, string][] = []) =>
    transaction.respond(responseTo(request, status, { toTag, headers: extra, ...(reason && { reason }) }));

  const contentType = header(request, 'Content-Type');
  if (contentType && request.body.length > 0 && !/^application\/sdp\b/i.test(contentType))
    return refuse(415, undefined, [['Accept', 'application/sdp']]);
  // No body: a late offer. We offer in the 200; until the ACK's answer, PCMU is assumed and nothing is sent.
  const lateOffer = request.body.length === 0;
  let remote = LATE_OFFER_REMOTE;
  let negotiated: Negotiated = LATE_OFFER_CHOICE;
  if (!lateOffer) {
    const offer = parseSdp(request.body.toString('latin1'));
    const chosen = offer && negotiate(offer);
    if (!offer || !chosen) return refuse(488, 'Not Acceptable Here (no PCMU or PCMA audio offered)');
    remote = { address: offer.address, port: offer.port };
    negotiated = chosen;
  }

  let cancelled = false;
  context.pending.set(transaction.key, {
    cancel: () => {
      cancelled = true;
      refuse(487);
    },
  });
  let lease: PortLease | undefined;
  try {
    try {
      lease = await context.ports.allocate();
    } catch {
      return refuse(503, 'Service Unavailable (no free RTP port)');
    }
    if (cancelled) return;
    transaction.respond(responseTo(request, 180, { toTag }));

    const from = nameAddr(header(request, 'From')!)!;
    const to = nameAddr(header(request, 'To')!)!;
    const requestUser = parseUri(request.uri)?.user;
    const dialled = dialledNumber(requestUser, parseUri(to.uri)?.user);
    const peer = transaction.peer;
    let reply: SipInboundReply;
    try {
      const message = await context.bus.request(
        subjects.sipInbound(),
        sipCodecs.inboundOffer.encode({
          gatewayId: context.gatewayId,
          sipCallId: header(request, 'Call-ID')!,
          to: dialled,
          from: phoneOrUser(parseUri(from.uri)?.user),
          ...(from.displayName && { fromName: from.displayName }),
          requestUri: request.uri,
          sourceAddress: peer.address,
          sourcePort: peer.port,
          transport: peer.transport,
        }),
        { timeoutMs: context.inboundTimeoutMs },
      );
      reply = sipCodecs.inboundReply.decode(message.data);
    } catch (error) {
      context.log('inbound offer unanswered', { sipCallId: header(request, 'Call-ID'), error: String(error) }, 'warn');
      if (!cancelled) refuse(503, 'Service Unavailable (no answer from the control plane)');
      return;
    }
    if (!reply.ok) {
      context.log('inbound call refused', { sipStatus: reply.sipStatus, code: reply.code });
      if (!cancelled) refuse(reply.sipStatus, reply.reason.replace(/[\r\n]/g, ' '));
      return;
    }
    if (cancelled) {
      // The engine already holds the call: open and close its bridge so it ends now, not at its media timeout.
      const bridge = new MediaBridge(context.bus, reply.callId, {
        play() {},
        mark() {},
        clear() {},
        sendDigits() {},
        hangup() {},
        transfer() {},
      });
      bridge.open(reply.streamToken, negotiated.codec, context.gatewayId);
      bridge.stop('cancelled');
      return;
    }

    const contact = await context.ua.contactFor(peer);
    const dialog = Dialog.asServer(request, toTag, peer, contact);
    const call = new SipCall({
      ua: context.ua,
      bus: context.bus,
      clock: context.clock,
      gatewayId: context.gatewayId,
      callId: reply.callId,
      dialog,
      lease,
      negotiated,
      remote,
      referEnabled: reply.referEnabled,
      bridgedTransfer: (answered, target) =>
        bridgeTransfer(context, answered, target, transferRouteOf(reply, peer, dialled)),
      offerInAck: lateOffer,
      rtpTimeoutMs: context.rtpTimeoutMs,
      telephony: undefined,
      log: context.log,
      onEnded: (ended) => context.calls.delete(ended.callId),
    });
    lease = undefined; // the call owns the port now
    context.calls.set(call.callId, call);
    context.ua.addDialog(dialog, call);
    call.send2xx(
      transaction,
      responseTo(request, 200, {
        toTag,
        headers: [
          ['Contact', dialog.contactHeader()],
          ['Allow', ALLOWED_METHODS.join(', ')],
          ['Content-Type', 'application/sdp'],
        ],
        body: call.localSdp(contact.address),
      }),
    );
    call.bridge.open(reply.streamToken, negotiated.codec, context.gatewayId);
    context.log('inbound call answered', { callId: call.callId, codec: negotiated.codec, rtpPort: call.rtp.port });
  } finally {
    lease?.release();
    context.pending.delete(transaction.key);
  }
}
