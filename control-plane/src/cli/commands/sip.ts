/**
 * `parley sip`: SIP trunks and configurations from the command line (docs/architecture.md §12), through the same
 * service and checks as POST /sip-config and /sip-config/trunks. A trunk's digest password is read from the
 * environment (PARLEY_SIP_TRUNK_PASSWORD), never a flag, so it does not show in the process list or shell history.
 */
import { isId } from '../../db/ids.ts';
import { ApiError } from '../../errors.ts';
import { loadKeyRing } from '../../secrets/load-key-ring.ts';
import { SipConfigService } from '../../sip/sip-config-service.ts';
import { SIP_CONFIGURATION_TYPES, SIP_TRANSPORTS, type SipConfigurationType } from '../../sip/records.ts';
import { CliError, list, print, requireFlag, withDatabase, type CommandArgs } from '../command.ts';

/** Where `parley sip trunk` reads the trunk's digest password. */
export const TRUNK_PASSWORD_ENV = 'PARLEY_SIP_TRUNK_PASSWORD';

const USAGE =
  'usage: parley sip trunk --org ID --name N --host H [--port 5060] [--transport udp|tcp] [--username U] ' +
  `[--sources 203.0.113.0/24,…] (password from ${TRUNK_PASSWORD_ENV}) | ` +
  'parley sip config --org ID --trunk ID --type INBOUND|OUTBOUND --number +E164 [--agent ID] [--max-calls N] [--max-queue N] | ' +
  'parley sip list --org ID';

export async function runSip(args: CommandArgs): Promise<number> {
  const [action] = args.positionals;
  if (action !== 'trunk' && action !== 'config' && action !== 'list') throw new CliError(USAGE);
  const organisationId = requireFlag(args, 'org');
  if (!isId(organisationId)) throw new CliError('--org must be an organisation id (24 hex characters)');
  try {
    return await withDatabase(async (db, config) => {
      const service = new SipConfigService(db.sql, await loadKeyRing(config));
      if (action === 'trunk') return trunk(args, service, organisationId);
      if (action === 'config') return configuration(args, service, organisationId);
      return show(args, service, organisationId);
    });
  } catch (error) {
    // The service's refusals (a bad field, a taken number) are the operator's mistakes: said plainly, exit code 2.
    if (error instanceof ApiError) throw new CliError(error.message);
    throw error;
  }
}

async function trunk(args: CommandArgs, service: SipConfigService, organisationId: string): Promise<number> {
  const transport = args.flags.transport ?? 'udp';
  if (!(SIP_TRANSPORTS as readonly string[]).includes(transport)) throw new CliError('--transport must be udp or tcp');
  const password = process.env[TRUNK_PASSWORD_ENV];
  const created = await service.createTrunk(organisationId, {
    name: requireFlag(args, 'name'),
    host: requireFlag(args, 'host'),
    port: integerFlag(args.flags.port, '--port') ?? undefined,
    transport: transport as 'udp' | 'tcp',
    username: args.flags.username ?? null,
    ...(password && { password }),
    sourceAddresses: list(args.flags.sources),
  });
  print(
    args.flags.json,
    { ...created, createdAt: created.createdAt.toISOString(), updatedAt: created.updatedAt.toISOString() },
    `SIP trunk ${created.id} (${created.host}:${created.port}/${created.transport}) created` +
      (created.hasPassword ? ', its password stored encrypted.' : '.'),
  );
  return 0;
}

async function configuration(args: CommandArgs, service: SipConfigService, organisationId: string): Promise<number> {
  const type = requireFlag(args, 'type').toUpperCase();
  if (!(SIP_CONFIGURATION_TYPES as readonly string[]).includes(type))
    throw new CliError('--type must be INBOUND or OUTBOUND');
  const created = await service.create(organisationId, {
    sipTrunkId: requireFlag(args, 'trunk'),
    type: type as SipConfigurationType,
    phoneNumber: requireFlag(args, 'number'),
    agentId: args.flags.agent ?? null,
    maxConcurrentCalls: integerFlag(args.flags['max-calls'], '--max-calls'),
    maxQueueSize: integerFlag(args.flags['max-queue'], '--max-queue'),
  });
  print(
    args.flags.json,
    { ...created, createdAt: created.createdAt.toISOString(), updatedAt: created.updatedAt.toISOString() },
    `SIP configuration ${created.id} created: ${created.type} ${created.phoneNumber}` +
      (created.agentId ? `, agent ${created.agentId}` : '') +
      `, up to ${created.maxConcurrentCalls} calls at once.`,
  );
  return 0;
}

async function show(args: CommandArgs, service: SipConfigService, organisationId: string): Promise<number> {
  const trunks = await service.trunks(organisationId);
  const configurations = await service.list(organisationId);
  print(
    args.flags.json,
    { trunks, configurations },
    [
      ...trunks.map(
        (t) => `trunk  ${t.id}  ${t.host}:${t.port}/${t.transport}  sources ${t.sourceAddresses.join(',') || '-'}`,
      ),
      ...configurations.map(
        (c) =>
          `config ${c.id}  ${c.type.padEnd(8)} ${c.phoneNumber}  trunk ${c.sipTrunkId}  agent ${c.agentId ?? '-'}` +
          `  ${c.isActive ? 'active' : 'inactive'}`,
      ),
    ].join('\n') || 'No SIP trunks or configurations.',
  );
  return 0;
}

/** A whole number from a flag (undefined when absent); the service checks its range. */
function integerFlag(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value)) throw new CliError(`${name} must be a whole number`);
  return Number(value);
}
