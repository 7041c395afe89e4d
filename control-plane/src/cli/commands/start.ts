/**
 * `parley start`: runs the roles named by --roles or PARLEY_ROLES in this process, prints the ready line once all
 * are up, and shuts down gracefully on SIGINT/SIGTERM (a second signal forces the exit).
 */
import net from 'node:net';
import pino from 'pino';
import {
  startEngineRole,
  startLlmWorkerRole,
  startSttWorkerRole,
  startTtsWorkerRole,
  type EngineConfig,
  type RoleLog,
} from '@parley/engine';
import { connectBus, type Bus } from '@parley/engine/bus';
import { startSipGatewayRole } from '@parley/sip-gateway';
import { loadConfig, readRoles, type Config, type Role } from '../../config.ts';
import { start as startControlPlane, type RoleHandle } from '../../server.ts';
import { CliError, type CommandArgs } from '../command.ts';

type RoleStarter = (config: Config, bus: Bus, log: pino.Logger) => Promise<RoleHandle>;

/** An engine role's start function, adapted: its reports go to the role's logger. */
const engineRole =
  (
    start: (config: EngineConfig, bus: Bus, log: RoleLog) => Promise<{ role: string; close(): Promise<void> }>,
  ): RoleStarter =>
  async (config, bus, log) => {
    const role = await start(config.engine, bus, (event, detail, level = 'info') => log[level](detail ?? {}, event));
    return { role: role.role, close: () => role.close() };
  };

/**
 * The engine role: on shutdown it drains first (docs/architecture.md §18) — no new calls, running calls given
 * PARLEY_DRAIN_SECONDS to finish, the rest ended with a closing line — then closes.
 */
const engineRoleDraining: RoleStarter = async (config, bus, log) => {
  const role = await startEngineRole(config.engine, bus, (event, detail, level = 'info') =>
    log[level](detail ?? {}, event),
  );
  return {
    role: role.role,
    close: async () => {
      await role.drain(config.drainTimeoutMs);
      await role.close();
    },
  };
};

/** The SIP gateway on SIP_PORT (UDP and TCP), RTP on RTP_PORT_MIN..MAX, its /healthz and /metrics on SIP_HEALTH_PORT. */
const sipGatewayRole: RoleStarter = async (config, bus, log) => {
  const role = await startSipGatewayRole(
    {
      host: config.host,
      sipPort: config.sipPort,
      rtpPortMin: config.rtpPortMin,
      rtpPortMax: config.rtpPortMax,
      healthPort: config.sipHealthPort,
      metricsToken: config.metricsToken,
    },
    bus,
    (event, detail, level = 'info') => log[level](detail ?? {}, event),
  );
  return { role: role.role, close: () => role.close() };
};

/** The roles this build can run; naming a role that is not here is refused rather than silently skipped. */
const ROLE_STARTERS: Partial<Record<Role, RoleStarter>> = {
  'control-plane': startControlPlane,
  'stt-worker': engineRole(startSttWorkerRole),
  'llm-worker': engineRole(startLlmWorkerRole),
  'tts-worker': engineRole(startTtsWorkerRole),
  engine: engineRoleDraining,
  'sip-gateway': sipGatewayRole,
};

/** The roles `parley start` can run in this build (docker-compose.yml's services are checked against them). */
export const STARTABLE_ROLES = Object.keys(ROLE_STARTERS) as Role[];

export async function runStart(args: CommandArgs): Promise<number> {
  let config = loadConfig();
  if (args.flags.roles !== undefined) config = { ...config, roles: readRoles(args.flags.roles) };
  const explicit = args.flags.roles !== undefined || (process.env.PARLEY_ROLES ?? 'all').trim() !== 'all';
  const roles = explicit ? config.roles : config.roles.filter((role) => ROLE_STARTERS[role]);
  const missing = roles.filter((role) => !ROLE_STARTERS[role]);
  if (missing.length) throw new CliError(`role ${missing.join(', ')} is not available in this build yet`);
  if (config.port === 0) config = withPort(config, await freePort());

  const log = pino({ level: config.logLevel, base: { service: 'parley' } });
  const bus = await connectBus(config.natsUrl, `parley-${process.pid}`);
  log.info({ bus: bus.description, roles }, 'starting');
  // docs/architecture.md §2: a lost bus is worth a warning both ways — calls degrade while it is gone.
  bus.onConnectionChange((connected, server) =>
    log.warn({ bus: bus.description, server }, connected ? 'bus reconnected' : 'bus disconnected: reconnecting'),
  );
  const handles: RoleHandle[] = [];
  const stopAll = async () => {
    for (const handle of handles.reverse()) {
      await handle
        .close()
        .catch((error: unknown) => log.error({ err: error, role: handle.role }, 'role failed to stop'));
    }
    await bus.drain().catch(() => bus.close());
  };
  try {
    for (const role of roles) handles.push(await ROLE_STARTERS[role]!(config, bus, log.child({ role })));
  } catch (error) {
    await stopAll();
    throw error;
  }
  const url = handles.find((h) => h.url)?.url ?? `http://127.0.0.1:${config.port}`;
  process.stdout.write(`Parley ready at ${url}\n`);

  return new Promise<number>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        log.warn({ signal }, 'second signal: exiting now');
        process.exit(1);
      }
      stopping = true;
      log.info({ signal }, 'shutting down');
      void stopAll().then(
        () => resolve(0),
        (error: unknown) => {
          log.error({ err: error }, 'shutdown failed');
          resolve(1);
        },
      );
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}

function withPort(config: Config, port: number): Config {
  const explicitPublicUrl = process.env.PARLEY_PUBLIC_URL?.trim();
  return { ...config, port, publicUrl: explicitPublicUrl ? config.publicUrl : `http://127.0.0.1:${port}` };
}

/** PORT=0 asks for any free port; it is chosen here so that URLs built before listening already carry it. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
