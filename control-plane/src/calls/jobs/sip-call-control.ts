/**
 * Keeps a SIP call's two halves — the engine's session and the gateway's leg — ending together
 * (docs/architecture.md §12), told of every call event written (CallEventPersister's onApplied):
 *
 * - the gateway reported the leg over (busy, no answer, rejected, failed, cancelled, completed, transferred): the
 *   engine is told to end the call's session, if one runs
 * - the engine's `ended` of a call over a SIP configuration: the gateway is told to hang the leg up — the engine
 *   normally does so over its media bridge, but a bridge that was never opened or is gone cannot carry it
 */
import type { Bus } from '@parley/engine/bus';
import { callCodecs, subjects, type CallEvent, type SipLegStatus } from '@parley/engine/protocol';
import type { Sql } from '../../db/database.ts';
import { isSipGatewayCall } from '../../sip/sip-repository.ts';
import type { PlacementLog } from '../launch/engine-dispatch.ts';
import { hangUpSipLeg } from '../launch/sip-calls.ts';

/** Leg reports that mean the phone side is over. */
const LEG_OVER: ReadonlySet<SipLegStatus> = new Set([
  'busy',
  'no_answer',
  'rejected',
  'failed',
  'cancelled',
  'completed',
  'transferred',
]);

export class SipCallControl {
  readonly #sql: Sql;
  readonly #bus: Bus;
  readonly #log: PlacementLog;
  readonly #pending = new Set<Promise<unknown>>();

  constructor(sql: Sql, bus: Bus, log: PlacementLog = () => {}) {
    this.#sql = sql;
    this.#bus = bus;
    this.#log = log;
  }

  readonly onEventApplied = (callId: string, event: CallEvent): void => {
    if (event.type === 'telephony' && LEG_OVER.has(event.status)) {
      this.#bus.publish(
        subjects.callControl(callId),
        callCodecs.control.encode({ type: 'end', reason: `sip_${event.status}` }),
      );
      return;
    }
    if (event.type !== 'ended') return;
    const work = isSipGatewayCall(this.#sql, callId)
      .then((sip) => {
        if (sip) hangUpSipLeg(this.#bus, callId, event.reason);
      })
      .catch((error: unknown) => this.#log('warn', 'SIP hang-up failed', { callId, error: String(error) }));
    this.#pending.add(work);
    void work.finally(() => this.#pending.delete(work));
  };

  async close(): Promise<void> {
    await Promise.allSettled([...this.#pending]);
  }
}
