/**
 * Transfers of carrier calls: a media websocket cannot move the caller elsewhere, the carrier's REST API can, and
 * only the control plane holds the carrier account. So the engine asks it over the bus (`v1.telephony.transfer`)
 * and waits for the carrier's answer.
 */
import type { Bus } from '../bus/index.ts';
import { callCodecs, subjects } from '../protocol/index.ts';

/** How long the control plane and the carrier have to take a transfer, ms. */
export const CARRIER_TRANSFER_TIMEOUT_MS = 15_000;

/** Resolves when the carrier took the transfer; rejects with its reason otherwise (no control plane, refused). */
export async function requestCarrierTransfer(bus: Bus, callId: string, to: string): Promise<void> {
  const answer = await bus.request(subjects.carrierTransfer(), callCodecs.transferRequest.encode({ callId, to }), {
    timeoutMs: CARRIER_TRANSFER_TIMEOUT_MS,
  });
  const reply = callCodecs.transferReply.decode(answer.data);
  if (!reply.ok) throw new Error(`the carrier did not transfer the call: ${reply.message ?? 'refused'}`);
}
