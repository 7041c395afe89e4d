/**
 * The `parley` command. Configured by the same environment variables as the server (docs/architecture.md §2); flags only
 * name what a command acts on. `--json` prints one JSON object, for scripts.
 */
import { parseArgs } from 'node:util';
import { ConfigError } from '../config-error.ts';
import { CliError } from './cli-error.ts';
import type { CommandArgs } from './command.ts';
import { clientUsage, isClientCommand, runClient } from './client/index.ts';

export const USAGE = `Usage: parley <command>

  start [--roles r1,r2]                 run the platform (default: every role, in this process)
  migrate                               apply pending database migrations
  org create --name N --owner-email E [--owner-name N] [--credit USD] [--json]
                                        create an organisation, its owner and an API key with every scope,
                                        its wallet credited with --credit dollars (default none)
  org features ID [--enable a,b] [--disable c] [--json]
                                        switch organisation features (${'flow_agents, self_serve_telephony, india_provisioning, managed_numbers'})
  keys create --org ID --scopes a,b --name N [--user ID] [--json]
                                        create an API key (default owner: the organisation's owner)
  keys revoke ID [--json]               revoke an API key everywhere at once
  users password --email E [--json]     set a user's password for MCP sign-in (read from standard input)
  call [--agent ID] [--speak TEXT] [--url URL] [--key KEY] [--out FILE]
                                        place a websocket call on a running Parley and speak TEXT (default
                                        "Hello world") to agent ID (default the demo agent, created on first use);
                                        prints the transcript, saves the agent's audio (default .parley/try-call.wav)
  wallet credit --org ID --amount 5.00 --reason R [--actor NAME] [--json]
                                        credit the pay-as-you-go wallet (journaled with who and why; the
                                        actor defaults to your login name), then pay any unpaid usage from it
  wallet debit --org ID --amount 5.00 --reason R [--actor NAME] [--json]
                                        debit it; refused (exit 2) when the wallet cannot pay it
  wallet show --org ID [--json]         the balance, unpaid usage and the last ${'10'} transactions
  db shell [-- psql arguments]          psql on the database (DATABASE_URL, else the embedded one)
  billing plan --org ID --plan CODE [--json]
                                        put an organisation on plan billing (its first allowance at once)
  billing suspend --org ID --reason TEXT | billing resume --org ID
                                        refuse (402, with the reason) or allow the organisation's calls again
  sip trunk --org ID --name N --host H [--port P] [--transport udp|tcp] [--username U] [--sources a,b] [--json]
                                        add a SIP trunk; its digest password is read from PARLEY_SIP_TRUNK_PASSWORD
  sip config --org ID --trunk ID --type INBOUND|OUTBOUND --number E164 [--agent ID] [--max-calls N]
             [--max-queue N] [--json]   put a trunk's number to work: answered by an agent, or dialled out from
  sip list --org ID [--json]            the organisation's SIP trunks and configurations

Configuration comes from the environment: DATABASE_URL, NATS_URL, PARLEY_DATA_DIR, PORT, … (see README).

The REST API client (needs only a URL and an API key, no database):
${clientUsage()}`;

/** Every flag `parley` accepts (docker-compose.yml's commands are checked against it). */
export const CLI_OPTIONS = {
  roles: { type: 'string' },
  name: { type: 'string' },
  'owner-email': { type: 'string' },
  'owner-name': { type: 'string' },
  credit: { type: 'string' },
  org: { type: 'string' },
  scopes: { type: 'string' },
  user: { type: 'string' },
  enable: { type: 'string' },
  disable: { type: 'string' },
  agent: { type: 'string' },
  speak: { type: 'string' },
  url: { type: 'string' },
  key: { type: 'string' },
  out: { type: 'string' },
  plan: { type: 'string' },
  reason: { type: 'string' },
  amount: { type: 'string' },
  actor: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  transport: { type: 'string' },
  username: { type: 'string' },
  sources: { type: 'string' },
  trunk: { type: 'string' },
  type: { type: 'string' },
  number: { type: 'string' },
  'max-calls': { type: 'string' },
  'max-queue': { type: 'string' },
  email: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export async function main(argv: string[]): Promise<number> {
  if (isClientCommand(argv[0])) return reportErrors(() => runClient(argv), argv.includes('--json'));
  let args: CommandArgs;
  try {
    const parsed = parseArgs({ args: argv, options: CLI_OPTIONS, allowPositionals: true, strict: true });
    args = { positionals: parsed.positionals, flags: parsed.values };
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const [command, ...rest] = args.positionals;
  if (args.flags.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return command || args.flags.help ? 0 : 2;
  }
  const sub = { ...args, positionals: rest };
  return reportErrors(() => runAdmin(command, sub), args.flags.json === true);
}

/**
 * Each admin command is loaded when it runs: `start` brings the whole platform, and the REST client's commands,
 * which need none of it, start in a fraction of the time.
 */
async function runAdmin(command: string, sub: CommandArgs): Promise<number> {
  switch (command) {
    case 'start':
      return (await import('./commands/start.ts')).runStart(sub);
    case 'migrate':
      return (await import('./commands/migrate.ts')).runMigrate(sub);
    case 'org':
      return (await import('./commands/org.ts')).runOrg(sub);
    case 'keys':
      return (await import('./commands/keys.ts')).runKeys(sub);
    case 'call':
      return (await import('./commands/call.ts')).runCall(sub);
    case 'db':
      return (await import('./commands/db.ts')).runDb(sub);
    case 'billing':
      return (await import('./commands/billing.ts')).runBilling(sub);
    case 'wallet':
      return (await import('./commands/wallet.ts')).runWallet(sub);
    case 'sip':
      return (await import('./commands/sip.ts')).runSip(sub);
    case 'users':
      return (await import('./commands/users.ts')).runUsers(sub);
    default:
      throw new CliError(`unknown command "${command}"`);
  }
}

/** A user's mistake (CliError, ConfigError) is one line and exit 2; anything else is a bug: its stack, exit 1. */
async function reportErrors(run: () => Promise<number>, json: boolean): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof CliError || error instanceof ConfigError) {
      if (json) process.stdout.write(`${JSON.stringify({ error: error.message })}\n`);
      process.stderr.write(`parley: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`parley: ${(error as Error).stack ?? String(error)}\n`);
    return 1;
  }
}
