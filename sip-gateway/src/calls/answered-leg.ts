/**
 * An outbound INVITE's answer becomes a live leg (a SipCall) among the gateway's calls: for a dialled call
 * (dialled-call.ts) and for a bridged transfer's new leg (bridged-transfer.ts) alike.
 */
import type { GatewayContext } from './gateway-context.ts';
import type { AnsweredLeg } from './outbound-dial.ts';
import { SipCall, type SipCallOptions } from './sip-call.ts';

export function answeredLeg(
  context: GatewayContext,
  callId: string,
  leg: AnsweredLeg,
  options: Pick<SipCallOptions, 'referEnabled' | 'telephony' | 'control' | 'bridgedTransfer'>,
): SipCall {
  const call = new SipCall({
    ua: context.ua,
    bus: context.bus,
    clock: context.clock,
    gatewayId: context.gatewayId,
    callId,
    dialog: leg.dialog,
    lease: leg.lease,
    negotiated: leg.negotiated,
    remote: leg.remote,
    rtpTimeoutMs: context.rtpTimeoutMs,
    log: context.log,
    onEnded: (ended) => context.calls.delete(ended.callId),
    ...options,
  });
  context.calls.set(callId, call);
  context.ua.addDialog(leg.dialog, call);
  return call;
}
