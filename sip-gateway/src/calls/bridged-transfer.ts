/**
 * Transfer by a bridged new leg, when the configuration does not allow REFER (docs/architecture.md §11): the
 * gateway INVITEs the target over the same trunk the call came on or went out by; while it rings the caller stays
 * with the agent. Once it answers, the two legs become partners (SipCall.relayWith): the engine is told the
 * transfer is done and leaves, and each leg's audio and keys go to the other. Busy, no answer, a refusal or no free
 * RTP port leave the call as it was, and the engine hears why (its agent stays on the line).
 */
import { SIP_TRANSFER_TIMEOUT_MS, type SipTrunkTarget } from '@parley/engine/protocol';
import type { PortLease } from '../rtp/port-pool.ts';
import { parseUri } from '../sip/message.ts';
import type { Peer } from '../sip/transport.ts';
import { answeredLeg } from './answered-leg.ts';
import type { GatewayContext } from './gateway-context.ts';
import { OutboundDial } from './outbound-dial.ts';
import type { SipCall, TransferResult } from './sip-call.ts';

/** The trunk a call's transfers go out by, and where its SIP messages go. */
export interface TransferRoute {
  trunk: SipTrunkTarget;
  peer: Peer;
}

/** The new leg's key among the gateway's calls: the call id and a suffix, so /healthz and close() see it. */
export const transferLegKey = (callId: string): string => `${callId}-transfer`;

export async function bridgeTransfer(
  context: GatewayContext,
  call: SipCall,
  to: string,
  route: TransferRoute,
): Promise<TransferResult> {
  // The trunk is dialled as for any call (`sip:<user>@<trunk>`): a SIP URI target lends only its user part.
  const callee = /^sips?:/i.test(to) ? parseUri(to)?.user : to;
  if (!callee || !/^[A-Za-z0-9+*#._-]{1,64}$/.test(callee))
    return { ok: false, sipStatus: 484, reason: `${to} is not a number or user the trunk can dial` };
  let lease: PortLease;
  try {
    lease = await context.ports.allocate();
  } catch {
    return { ok: false, sipStatus: 503, reason: 'no free RTP port for the new leg' };
  }
  if (call.ended) {
    lease.release();
    return { ok: false, reason: 'the call ended' };
  }
  const key = transferLegKey(call.callId);
  return new Promise<TransferResult>((resolve) => {
    const dial = new OutboundDial(
      context,
      { key, to: callee, trunk: route.trunk, ringTimeoutMs: SIP_TRANSFER_TIMEOUT_MS, control: false },
      lease,
      route.peer,
      {
        ringing: (sipStatus) => context.log('transfer ringing', { callId: call.callId, to, sipStatus }),
        answered: (leg) => {
          const partner = answeredLeg(context, key, leg, { referEnabled: false, telephony: undefined, control: false });
          if (call.ended) {
            partner.hangup('the caller hung up before the transfer answered');
            resolve({ ok: false, reason: 'the call ended' });
            return;
          }
          call.relayWith(partner, leg.sipStatus);
          partner.relayWith(call, leg.sipStatus);
          context.log('transfer bridged', { callId: call.callId, to, rtpPorts: [call.rtp.port, partner.rtp.port] });
          resolve({ ok: true, sipStatus: leg.sipStatus, reason: 'bridged' });
        },
        failed: (outcome, sipStatus, reason) => resolve({ ok: false, sipStatus, reason: `${outcome}: ${reason}` }),
      },
    );
    // The caller hanging up while the target rings gives the new leg up (CANCEL).
    call.whenEnded(() => dial.cancel('cancelled'));
    dial.start().catch((error: unknown) => {
      dial.cancel('cancelled');
      lease.release();
      resolve({ ok: false, reason: `the new leg could not be placed: ${String(error)}` });
    });
  });
}
