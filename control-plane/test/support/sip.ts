/**
 * The SIP side of control-plane tests (docs/architecture.md §12): trunks and configurations made through the API,
 * and a test double of the SIP gateway that speaks the bus contract (engine/src/protocol/sip.ts) as the real one
 * does — it offers INVITEs on `v1.sip.inbound`, takes dials on `v1.sip.dial` (queue sip-gateway), hears
 * `v1.sip.<callId>.control`, and reports a leg's progress as `telephony` call events.
 */
import { expect } from 'vitest';
import type { Bus, Subscription } from '@parley/engine/bus';
import {
  callCodecs,
  queues,
  SIP_INBOUND_TIMEOUT_MS,
  sipCodecs,
  subjects,
  type SipCallControl,
  type SipDialReply,
  type SipDialRequest,
  type SipInboundOffer,
  type SipInboundReply,
  type SipLegStatus,
} from '@parley/engine/protocol';
import type { TestApp } from './app.ts';

/** Where the test trunk's INVITEs come from. */
export const TRUNK_SOURCE = '198.51.100.7';

export async function createTrunk(t: TestApp, key: string, body: object = {}): Promise<{ id: string }> {
  const res = await t.call(key, {
    method: 'POST',
    url: '/api/v1/sip-config/trunks',
    payload: {
      name: 'Test trunk',
      host: '127.0.0.1',
      port: 5099,
      username: 'parley',
      password: 'trunk-password',
      sourceAddresses: [`${TRUNK_SOURCE}/32`, '2001:db8::/32'],
      ...body,
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

export async function createSipConfiguration(
  t: TestApp,
  key: string,
  body: Record<string, unknown>,
): Promise<{ id: string; phoneNumber: string }> {
  const res = await t.call(key, { method: 'POST', url: '/api/v1/sip-config', payload: body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

/** A VOICE agent made through the API. */
export async function createVoiceAgent(t: TestApp, key: string): Promise<string> {
  const res = await t.call(key, {
    method: 'POST',
    url: '/api/v1/voice/agents',
    payload: {
      name: 'Switchboard',
      agentIdentity: 'You answer the office phone.',
      agentTask: 'Help callers.',
      greetingMessage: 'Hello, you reached the office.',
    },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id;
}

let sipCallSeq = 0;

export function inviteOffer(to: string, overrides: Partial<SipInboundOffer> = {}): SipInboundOffer {
  return {
    gatewayId: 'test-gateway',
    sipCallId: `call-${++sipCallSeq}@test`,
    to,
    from: '+14155559000',
    fromName: 'Pat Caller',
    requestUri: `sip:${to}@parley.test`,
    sourceAddress: TRUNK_SOURCE,
    sourcePort: 5060,
    transport: 'udp',
    ...overrides,
  };
}

/** What the control plane answers an INVITE, asked as the gateway asks. */
export async function offerInvite(bus: Bus, offer: SipInboundOffer): Promise<SipInboundReply> {
  const reply = await bus.request(subjects.sipInbound(), sipCodecs.inboundOffer.encode(offer), {
    timeoutMs: SIP_INBOUND_TIMEOUT_MS,
  });
  return sipCodecs.inboundReply.decode(reply.data);
}

/** The gateway's half of outbound calls: takes dials, hears control, reports legs. */
export class FakeSipGateway {
  readonly dials: SipDialRequest[] = [];
  readonly controls: { callId: string; control: SipCallControl }[] = [];
  /** What the next dials are answered with; default: taken. */
  answer: SipDialReply = { ok: true, gatewayId: 'fake-gateway' };
  readonly #bus: Bus;
  readonly #subscriptions: Subscription[] = [];
  readonly #serving: Promise<void>[] = [];
  #dialWaiters: (() => void)[] = [];
  #controlWaiters: (() => void)[] = [];

  constructor(bus: Bus) {
    this.#bus = bus;
    const dial = bus.subscribe(subjects.sipDial(), { queue: queues.sipGateway });
    // Every call's control subject: the builder refuses a wildcard id, so one is put in its place.
    const control = bus.subscribe(subjects.sipCallControl('CALL').replace('.CALL.', '.*.'));
    this.#subscriptions.push(dial, control);
    this.#serving.push(
      (async () => {
        for await (const message of dial) {
          const request = sipCodecs.dialRequest.decode(message.data);
          this.dials.push(request);
          message.respond(sipCodecs.dialReply.encode(this.answer));
          for (const wake of this.#dialWaiters.splice(0)) wake();
        }
      })(),
      (async () => {
        for await (const message of control) {
          const callId = message.subject.split('.').at(-2)!;
          this.controls.push({ callId, control: sipCodecs.control.decode(message.data) });
          for (const wake of this.#controlWaiters.splice(0)) wake();
        }
      })(),
    );
  }

  /** The dial request of `callId`, once it came. */
  async dialOf(callId: string): Promise<SipDialRequest> {
    for (;;) {
      const found = this.dials.find((d) => d.callId === callId);
      if (found) return found;
      await new Promise<void>((resolve) => this.#dialWaiters.push(resolve));
    }
  }

  /** The control orders `callId`'s leg received, once one came. */
  async controlOf(callId: string): Promise<SipCallControl> {
    for (;;) {
      const found = this.controls.find((c) => c.callId === callId);
      if (found) return found.control;
      await new Promise<void>((resolve) => this.#controlWaiters.push(resolve));
    }
  }

  /** Reports the leg's progress as the gateway does: a `telephony` event on the call's event subject. */
  report(callId: string, status: SipLegStatus, sipStatus?: number): void {
    this.#bus.publish(
      subjects.callEvents(callId),
      callCodecs.event.encode({ type: 'telephony', status, atEpochMs: Date.now(), ...(sipStatus && { sipStatus }) }),
    );
  }

  async close(): Promise<void> {
    for (const subscription of this.#subscriptions) subscription.unsubscribe();
    await Promise.all(this.#serving);
  }
}
