/**
 * The SIP gateway's package root (sip-gateway/package.json `exports` "."): the role `parley start` runs, and the
 * gateway itself for harnesses (tests, the bench).
 */
import type { Bus } from '@parley/engine/bus';
import type { GatewayLog } from './calls/gateway-context.ts';
import { SipGateway, type SipGatewayOptions } from './gateway.ts';
import { countGateway } from './gateway-metrics.ts';
import { startHealthServer } from './health-server.ts';

export { SipGateway, RTP_TIMEOUT_MS, type SipGatewayHealth, type SipGatewayOptions } from './gateway.ts';
export { RFC3261_TIMERS, type SipTimers } from './sip/transactions.ts';

export interface SipGatewayRoleConfig {
  host: string;
  sipPort: number;
  rtpPortMin: number;
  rtpPortMax: number;
  /** SIP_HEALTH_PORT: where /healthz and /metrics answer; 0 picks a free port. */
  healthPort: number;
  /** PARLEY_METRICS_TOKEN: /metrics wants it as a bearer token when set (docs/architecture.md §19). */
  metricsToken?: string;
}

export interface SipGatewayRole {
  readonly role: 'sip-gateway';
  readonly gateway: SipGateway;
  readonly healthPort: number;
  close(): Promise<void>;
}

/** Starts the `sip-gateway` role: the gateway and its /healthz and /metrics. */
export async function startSipGatewayRole(
  config: SipGatewayRoleConfig,
  bus: Bus,
  log: GatewayLog,
  options: Partial<SipGatewayOptions> = {},
): Promise<SipGatewayRole> {
  const gateway = await SipGateway.start(bus, {
    host: config.host,
    sipPort: config.sipPort,
    rtpPortMin: config.rtpPortMin,
    rtpPortMax: config.rtpPortMax,
    log,
    ...options,
  });
  let health;
  try {
    health = await startHealthServer(config.host, config.healthPort, () => gateway.health, config.metricsToken);
  } catch (error) {
    await gateway.close();
    throw error;
  }
  log('sip gateway health', { port: health.port });
  const uncount = countGateway(() => gateway.health);
  return {
    role: 'sip-gateway',
    gateway,
    healthPort: health.port,
    async close() {
      uncount();
      await health.close();
      await gateway.close();
    },
  };
}
