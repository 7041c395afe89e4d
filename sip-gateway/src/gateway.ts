/**
 * The SIP gateway (docs/architecture.md §11): a user agent on SIP_PORT (UDP and TCP), RTP on the port range, and
 * the bus. Inbound INVITEs are answered through the control plane (`v1.sip.inbound`); outbound legs are placed
 * for it (`v1.sip.dial`, queue `sip-gateway`). `close` hangs up every call and frees every port.
 */
import { randomBytes } from 'node:crypto';
import { processPacingClock, type PacingClock } from '@parley/engine/audio';
import type { Bus, Subscription } from '@parley/engine/bus';
import { queues, SIP_INBOUND_TIMEOUT_MS, sipCodecs, subjects, type SipDialRequest } from '@parley/engine/protocol';
import type { GatewayContext, GatewayLog } from './calls/gateway-context.ts';
import { answerInvite } from './calls/inbound-call.ts';
import { dialledCall } from './calls/dialled-call.ts';
import type { SipCall } from './calls/sip-call.ts';
import { TelephonyReporter } from './calls/telephony-events.ts';
import { TrunkRegistrations, type RegistrationOptions } from './registration/trunk-registrations.ts';
import type { RegistrationSnapshot } from './registration/trunk-registration.ts';
import { RtpPortPool, type PortLease } from './rtp/port-pool.ts';
import { SourceRateLimit } from './sip/rate-limit.ts';
import type { SipTimers } from './sip/transactions.ts';
import { UserAgent } from './sip/user-agent.ts';

/** RTP silent this long ends a call, ms: a phone mid-call never stops sending for 60 s unless it is gone. */
export const RTP_TIMEOUT_MS = 60_000;

export interface SipGatewayOptions {
  /** Where SIP and RTP bind (PARLEY_HOST). */
  host: string;
  /** SIP_PORT; 0 picks a free port. */
  sipPort: number;
  rtpPortMin: number;
  rtpPortMax: number;
  log?: GatewayLog;
  /** Tests shorten these. */
  inboundTimeoutMs?: number;
  rtpTimeoutMs?: number;
  timers?: SipTimers;
  clock?: PacingClock;
  /** Per-source flood control: messages a second and burst (rate-limit.ts has the defaults). */
  sourceRate?: { perSecond: number; burst: number };
  /** Trunk registration timings (trunk-registrations.ts has the defaults; tests shorten them). */
  registration?: RegistrationOptions;
}

export interface SipGatewayHealth {
  status: 'ok';
  gatewayId: string;
  sipPort: number;
  activeCalls: number;
  /** Legs ringing or waiting for the control plane. */
  pendingCalls: number;
  rtpPortsFree: number;
  rtpPortsTotal: number;
  sip: { received: number; malformed: number; answered400: number; rateLimited: number; dialogs: number };
  /** Each trunk this gateway registers with, and how that stands. */
  registrations: RegistrationSnapshot[];
}

export class SipGateway {
  readonly #context: GatewayContext;
  readonly #dial: Subscription;
  readonly #registrations: TrunkRegistrations;

  private constructor(context: GatewayContext, dial: Subscription, registrations: TrunkRegistrations) {
    this.#context = context;
    this.#dial = dial;
    this.#registrations = registrations;
  }

  static async start(bus: Bus, options: SipGatewayOptions): Promise<SipGateway> {
    const ports = new RtpPortPool(options.host, options.rtpPortMin, options.rtpPortMax);
    const log = options.log ?? (() => {});
    let context: GatewayContext | undefined;
    const ua = await UserAgent.listen(
      options.host,
      options.sipPort,
      {
        invite: (transaction) => {
          if (!context) return;
          answerInvite(context, transaction).catch((error: unknown) =>
            log('inbound call failed', { error: String(error) }, 'error'),
          );
        },
        cancel: (invite) => context?.pending.get(invite.key)?.cancel('cancelled'),
      },
      options.timers,
      options.sourceRate && new SourceRateLimit(options.sourceRate.perSecond, options.sourceRate.burst),
    );
    const gatewayId = `sip-gateway-${randomBytes(6).toString('hex')}`;
    context = {
      gatewayId,
      ua,
      bus,
      clock: options.clock ?? processPacingClock(),
      ports,
      telephony: new TelephonyReporter(bus),
      log,
      inboundTimeoutMs: options.inboundTimeoutMs ?? SIP_INBOUND_TIMEOUT_MS,
      rtpTimeoutMs: options.rtpTimeoutMs ?? RTP_TIMEOUT_MS,
      calls: new Map(),
      pending: new Map(),
    };
    const dial = bus.subscribe(subjects.sipDial(), { queue: queues.sipGateway });
    const registrations = new TrunkRegistrations(ua, bus, gatewayId, log, options.registration).start();
    const gateway = new SipGateway(context, dial, registrations);
    void (async () => {
      for await (const message of dial) void gateway.#onDial(message.data, (reply) => message.respond(reply));
    })().catch(() => {});
    log('sip gateway listening', { sipPort: ua.port, rtpPorts: ports.size });
    return gateway;
  }

  get id(): string {
    return this.#context.gatewayId;
  }

  get sipPort(): number {
    return this.#context.ua.port;
  }

  get health(): SipGatewayHealth {
    const { ua, ports, calls, pending } = this.#context;
    return {
      status: 'ok',
      gatewayId: this.#context.gatewayId,
      sipPort: ua.port,
      activeCalls: calls.size,
      pendingCalls: pending.size,
      rtpPortsFree: ports.free,
      rtpPortsTotal: ports.size,
      sip: ua.stats,
      registrations: this.#registrations.snapshots,
    };
  }

  /** Live answered calls (tests and the bench read their RTP statistics). */
  get calls(): ReadonlyMap<string, SipCall> {
    return this.#context.calls;
  }

  async #onDial(data: Uint8Array, respond: (reply: string) => void): Promise<void> {
    const context = this.#context;
    let request: SipDialRequest;
    try {
      request = sipCodecs.dialRequest.decode(data);
    } catch (error) {
      respond(
        sipCodecs.dialReply.encode({
          ok: false,
          code: 'bad_message',
          message: (error as Error).message,
          retryable: false,
        }),
      );
      return;
    }
    let lease: PortLease;
    try {
      lease = await context.ports.allocate();
    } catch (error) {
      respond(
        sipCodecs.dialReply.encode({
          ok: false,
          code: 'no_rtp_port',
          message: (error as Error).message,
          retryable: true,
        }),
      );
      return;
    }
    const peer = { transport: request.trunk.transport, address: request.trunk.host, port: request.trunk.port };
    const dial = dialledCall(context, request, lease, peer);
    try {
      await dial.start();
    } catch (error) {
      lease.release();
      respond(sipCodecs.dialReply.encode({ ok: false, code: 'dial_failed', message: String(error), retryable: true }));
      return;
    }
    respond(sipCodecs.dialReply.encode({ ok: true, gatewayId: context.gatewayId }));
    context.log('outbound call dialled', { callId: request.callId, to: request.to });
  }

  async close(): Promise<void> {
    this.#dial.unsubscribe();
    // Unregister (Expires: 0) while the socket is still open; each waits a bounded time.
    await this.#registrations.close();
    for (const pending of [...this.#context.pending.values()]) pending.cancel('cancelled');
    for (const call of [...this.#context.calls.values()]) call.close();
    // Let the BYEs and CANCELs leave before the socket closes.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await this.#context.ua.close();
  }
}
