/**
 * The `telephony` call events of outbound legs (engine/src/protocol/call.ts): plain publishes on
 * `v1.call.<callId>.event`, which the control plane takes through the same JetStream durable as the engine's
 * events, so a leg's progress is applied once and in order with the rest.
 */
import type { Bus } from '@parley/engine/bus';
import { callCodecs, subjects, type SipLegStatus } from '@parley/engine/protocol';

export class TelephonyReporter {
  readonly #bus: Bus;

  constructor(bus: Bus) {
    this.#bus = bus;
  }

  report(callId: string, status: SipLegStatus, detail: { sipStatus?: number; reason?: string } = {}): void {
    this.#bus.publish(
      subjects.callEvents(callId),
      callCodecs.event.encode({
        type: 'telephony',
        status,
        ...(detail.sipStatus !== undefined && { sipStatus: detail.sipStatus }),
        ...(detail.reason !== undefined && { reason: detail.reason }),
        atEpochMs: Date.now(),
      }),
    );
  }
}
