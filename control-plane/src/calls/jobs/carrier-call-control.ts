/**
 * What engines ask of the carriers while calls run, and what the end of a call asks of them:
 *
 * - transfers: an engine's session cannot move a carrier call's caller by itself; it asks on `v1.telephony.transfer`
 *   (queue `control-plane`: one instance answers) and this instance asks the call's carrier (carrier-calls.ts)
 * - hang-ups: when an engine's `ended` is written (the agent hung up, a time limit struck), the carrier is told to
 *   end the call too — carrier-a keeps a call alive after its stream closes — unless the carrier ended it itself
 */
import type { Bus, Subscription } from '@parley/engine/bus';
import { callCodecs, queues, subjects, type CallEvent } from '@parley/engine/protocol';
import type { CarrierCalls } from '../launch/carrier-calls.ts';
import type { PlacementLog } from '../launch/engine-dispatch.ts';

/** Ends after which the carrier call is over already (the caller hung up) or must go on (moved to another number). */
const CARRIER_ENDED = new Set(['caller_hangup', 'transferred']);

export class CarrierCallControl {
  readonly #calls: CarrierCalls;
  readonly #log: PlacementLog;
  #subscription: Subscription | undefined;
  #serving: Promise<void> | undefined;
  readonly #pending = new Set<Promise<unknown>>();

  constructor(calls: CarrierCalls, log: PlacementLog = () => {}) {
    this.#calls = calls;
    this.#log = log;
  }

  /** Answers engines' transfer requests. */
  listen(bus: Bus): this {
    const subscription = bus.subscribe(subjects.carrierTransfer(), { queue: queues.controlPlane });
    this.#subscription = subscription;
    this.#serving = (async () => {
      for await (const message of subscription) {
        this.#track(
          (async () => {
            let reply: { ok: boolean; message?: string };
            try {
              const request = callCodecs.transferRequest.decode(message.data);
              const ok = await this.#calls.transfer(request.callId, request.to);
              reply = ok
                ? { ok }
                : { ok, message: 'the call is not live at a carrier that transfers, or the carrier refused' };
            } catch (error) {
              reply = { ok: false, message: error instanceof Error ? error.message : String(error) };
            }
            message.respond(callCodecs.transferReply.encode(reply));
          })(),
        );
      }
    })();
    return this;
  }

  /** Told of every call event written (CallEventPersister's onApplied): an engine's end hangs the carrier call up. */
  readonly onEventApplied = (callId: string, event: CallEvent): void => {
    if (event.type !== 'ended' || CARRIER_ENDED.has(event.reason) || event.reason.startsWith('carrier_')) return;
    this.#track(
      this.#calls
        .hangUp(callId)
        .catch((error: unknown) => this.#log('warn', 'carrier hang-up failed', { callId, error: String(error) })),
    );
  };

  /** Hangs the call up at its carrier (nothing when it has no carrier leg): a call finished on Parley's side. */
  hangUp(callId: string): Promise<void> {
    return this.#calls.hangUp(callId);
  }

  async close(): Promise<void> {
    this.#subscription?.unsubscribe();
    await this.#serving;
    await Promise.allSettled([...this.#pending]);
  }

  #track(work: Promise<unknown>): void {
    this.#pending.add(work);
    void work.finally(() => this.#pending.delete(work));
  }
}
