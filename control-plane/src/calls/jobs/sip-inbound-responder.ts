/**
 * Answers the SIP gateways' INVITEs (`v1.sip.inbound`, queue `control-plane`: one instance answers each): who takes
 * the call, or the SIP status to refuse it with (calls/launch/sip-calls.ts). A malformed offer is refused 400 and an
 * unexpected failure 500, so the gateway never waits out its timeout for an answer that will not come.
 */
import type { Bus, Subscription } from '@parley/engine/bus';
import { ProtocolError, queues, sipCodecs, subjects, type SipInboundReply } from '@parley/engine/protocol';
import type { PlacementLog } from '../launch/engine-dispatch.ts';
import type { SipCalls } from '../launch/sip-calls.ts';

export class SipInboundResponder {
  readonly #calls: SipCalls;
  readonly #log: PlacementLog;
  #subscription: Subscription | undefined;
  #serving: Promise<void> | undefined;
  readonly #pending = new Set<Promise<unknown>>();

  constructor(calls: SipCalls, log: PlacementLog = () => {}) {
    this.#calls = calls;
    this.#log = log;
  }

  listen(bus: Bus): this {
    const subscription = bus.subscribe(subjects.sipInbound(), { queue: queues.controlPlane });
    this.#subscription = subscription;
    this.#serving = (async () => {
      for await (const message of subscription) {
        const receivedAt = Date.now();
        const work = (async () => {
          let reply: SipInboundReply;
          try {
            const offer = sipCodecs.inboundOffer.decode(message.data);
            reply = await this.#calls.answerInbound(offer, receivedAt);
            this.#log('info', 'SIP INVITE answered', {
              to: offer.to,
              from: offer.from,
              ...(reply.ok ? { callId: reply.callId } : { sipStatus: reply.sipStatus, code: reply.code }),
            });
          } catch (error) {
            const malformed = error instanceof ProtocolError;
            reply = malformed
              ? { ok: false, sipStatus: 400, code: 'malformed_offer', reason: (error as ProtocolError).message }
              : { ok: false, sipStatus: 500, code: 'internal', reason: 'The control plane failed to route the call' };
            this.#log(malformed ? 'warn' : 'error', 'SIP INVITE not routed', { error: String(error) });
          }
          message.respond(sipCodecs.inboundReply.encode(reply));
        })();
        this.#pending.add(work);
        void work.finally(() => this.#pending.delete(work));
      }
    })();
    return this;
  }

  async close(): Promise<void> {
    this.#subscription?.unsubscribe();
    await this.#serving;
    await Promise.allSettled([...this.#pending]);
  }
}
