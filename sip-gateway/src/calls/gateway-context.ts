/**
 * What every call of a gateway shares: the user agent, the bus, the RTP ports, the pacing clock, the live calls.
 */
import type { PacingClock } from '@parley/engine/audio';
import type { Bus } from '@parley/engine/bus';
import type { RtpPortPool } from '../rtp/port-pool.ts';
import type { UserAgent } from '../sip/user-agent.ts';
import type { SipCall } from './sip-call.ts';
import type { TelephonyReporter } from './telephony-events.ts';

/** How the gateway reports: an event, its detail, and how bad it is (info by default, warn, error). */
export type GatewayLog = (event: string, detail?: Record<string, unknown>, level?: 'info' | 'warn' | 'error') => void;

export interface GatewayContext {
  readonly gatewayId: string;
  readonly ua: UserAgent;
  readonly bus: Bus;
  readonly clock: PacingClock;
  readonly ports: RtpPortPool;
  readonly telephony: TelephonyReporter;
  readonly log: GatewayLog;
  /** How long the control plane may take to answer an INVITE, ms. */
  readonly inboundTimeoutMs: number;
  /** RTP silent this long ends a call, ms. */
  readonly rtpTimeoutMs: number;
  /** Answered calls, by call id. */
  readonly calls: Map<string, SipCall>;
  /** Legs not yet answered (inbound INVITEs awaiting the control plane, outbound dials ringing), by a key of theirs. */
  readonly pending: Map<string, { cancel(reason: string): void }>;
}
