/**
 * A `v1.sip.dial` placed (docs/architecture.md §11): the OutboundDial's progress reported as `telephony` call
 * events, and its answer made a live leg whose media bridge opens with the dial's stream token. Its transfers go
 * out by the same trunk.
 *
 *   180/183            → ringing (once)
 *   200                → answered; the call lives on as a SipCall (BYE later → completed)
 *   486, 600           → busy
 *   ring timeout       → CANCEL, then no_answer
 *   hangup while ringing (control) → CANCEL, then cancelled
 *   408, 480, 487 (not ours) → no_answer;  403, 404, 603, other 4xx/6xx → rejected;  5xx, no response → failed
 */
import type { SipDialRequest } from '@parley/engine/protocol';
import type { PortLease } from '../rtp/port-pool.ts';
import type { Peer } from '../sip/transport.ts';
import { answeredLeg } from './answered-leg.ts';
import { bridgeTransfer } from './bridged-transfer.ts';
import type { GatewayContext } from './gateway-context.ts';
import { OutboundDial } from './outbound-dial.ts';

export function dialledCall(
  context: GatewayContext,
  request: SipDialRequest,
  lease: PortLease,
  peer: Peer,
): OutboundDial {
  const { callId } = request;
  const route = { trunk: request.trunk, peer };
  return new OutboundDial(
    context,
    { key: callId, to: request.to, trunk: request.trunk, ringTimeoutMs: request.ringTimeoutMs, control: true },
    lease,
    peer,
    {
      ringing: (sipStatus) => context.telephony.report(callId, 'ringing', { sipStatus }),
      answered: (leg) => {
        const call = answeredLeg(context, callId, leg, {
          referEnabled: request.referEnabled,
          telephony: context.telephony,
          bridgedTransfer: (answered, to) => bridgeTransfer(context, answered, to, route),
        });
        context.telephony.report(callId, 'answered', { sipStatus: leg.sipStatus });
        call.bridge.open(request.streamToken, leg.negotiated.codec, context.gatewayId);
        context.log('outbound call answered', { callId, codec: leg.negotiated.codec, rtpPort: call.rtp.port });
      },
      failed: (outcome, sipStatus, reason) => {
        context.telephony.report(callId, outcome, { sipStatus, reason });
        context.log('outbound call not answered', { callId, outcome, sipStatus });
      },
    },
  );
}
