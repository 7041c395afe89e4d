/**
 * The SIP gateway's metrics (docs/architecture.md §19), read from the live gateways' health at each scrape into the
 * process's one registry (@parley/engine/metrics): SIP legs answered and pending, the RTP port pool, and the SIP
 * message counters /healthz shows.
 */
import { Counter, Gauge } from 'prom-client';
import { metricsRegistry } from '@parley/engine/metrics';
import type { SipGatewayHealth } from './gateway.ts';

type HealthSource = () => SipGatewayHealth;

const gateways = new Set<HealthSource>();

function sum(pick: (health: SipGatewayHealth) => number): number {
  let total = 0;
  for (const health of gateways) total += pick(health());
  return total;
}

function gauge(name: string, help: string, pick: (health: SipGatewayHealth) => number): void {
  new Gauge({
    name,
    help,
    registers: [metricsRegistry],
    collect() {
      this.set(sum(pick));
    },
  });
}

gauge('parley_sip_active_calls', 'SIP legs answered and bridged to an engine now.', (h) => h.activeCalls);
gauge('parley_sip_pending_calls', 'SIP legs ringing or waiting for the control plane.', (h) => h.pendingCalls);
gauge(
  'parley_rtp_ports_free',
  'RTP ports free in the pool (RTP_PORT_MIN..MAX), each leg takes one.',
  (h) => h.rtpPortsFree,
);
gauge('parley_rtp_ports', 'RTP ports in the pool.', (h) => h.rtpPortsTotal);

/** The counters each gateway keeps, seen at the last scrape: Prometheus counters only move forward. */
const seen = new Map<string, number>();
const SIP_COUNTERS = {
  received: (h: SipGatewayHealth) => h.sip.received,
  malformed: (h: SipGatewayHealth) => h.sip.malformed,
  answered_400: (h: SipGatewayHealth) => h.sip.answered400,
  rate_limited: (h: SipGatewayHealth) => h.sip.rateLimited,
} as const;

new Counter({
  name: 'parley_sip_messages_total',
  help: 'SIP messages the gateway received, malformed ones, those answered 400, and those refused by the rate limit.',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
  collect() {
    for (const [kind, pick] of Object.entries(SIP_COUNTERS)) {
      const now = sum(pick);
      const before = seen.get(kind) ?? 0;
      // A gateway that closed takes its counts with it; the counter stays where it was.
      this.inc({ kind }, Math.max(0, now - before));
      seen.set(kind, Math.max(now, before));
    }
  },
});

/** Counts a running gateway in the metrics; the answer takes it out (on close). */
export function countGateway(health: HealthSource): () => void {
  gateways.add(health);
  return () => gateways.delete(health);
}
