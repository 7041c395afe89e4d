/**
 * A SIP gateway on an in-process bus with a stand-in control plane and no engine: for tests of the SIP layer
 * itself (timers, malformed input, floods, hold). The stand-in refuses INVITEs with the reply given, or accepts
 * them with a call id and a token no engine holds (the media bridge then simply gets no answer).
 */
import { randomBytes } from 'node:crypto';
import { MemoryBus, type Bus } from '@parley/engine/bus';
import { queues, sipCodecs, subjects, type SipInboundReply } from '@parley/engine/protocol';
import { SipGateway, type SipGatewayOptions } from '../../src/index.ts';

export interface BareGateway {
  bus: Bus;
  gateway: SipGateway;
  /** How the stand-in answers the next INVITEs (default: accept). */
  answer: (offerIndex: number) => SipInboundReply | 'accept' | Promise<SipInboundReply | 'accept'>;
  offers: number;
  close(): Promise<void>;
}

export async function startBareGateway(options: Partial<SipGatewayOptions> = {}): Promise<BareGateway> {
  const bus = new MemoryBus();
  const rtpPortMin = 42_000 + Math.floor(Math.random() * 200) * 100;
  const gateway = await SipGateway.start(bus, {
    host: '127.0.0.1',
    sipPort: 0,
    rtpPortMin,
    rtpPortMax: rtpPortMin + 19,
    ...options,
  });
  const bare: BareGateway = {
    bus,
    gateway,
    answer: () => 'accept',
    offers: 0,
    async close() {
      await gateway.close();
      await bus.close();
    },
  };
  const inbound = bus.subscribe(subjects.sipInbound(), { queue: queues.controlPlane });
  void (async () => {
    for await (const message of inbound) {
      const index = bare.offers++;
      const answer = await bare.answer(index);
      message.respond(
        sipCodecs.inboundReply.encode(
          answer === 'accept'
            ? {
                ok: true,
                callId: `call${randomBytes(6).toString('hex')}`,
                organisationId: 'org',
                streamToken: 'token-no-engine-holds',
                sipConfigurationId: 'cfg',
                referEnabled: false,
              }
            : answer,
        ),
      );
    }
  })();
  return bare;
}
