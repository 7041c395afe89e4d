/** What every CLI command receives, and how it says the user got something wrong. */
import { CliError } from './cli-error.ts';
import { connectBus } from '@parley/engine/bus';
import { subjects } from '@parley/engine/protocol';
import type { Revocation } from '../auth/principal.ts';
import { loadConfig, type Config } from '../config.ts';
import { openDatabase, type Database } from '../db/database.ts';
import { migrate } from '../db/migrator.ts';

export interface CommandArgs {
  positionals: string[];
  flags: {
    roles?: string;
    name?: string;
    'owner-email'?: string;
    'owner-name'?: string;
    credit?: string;
    org?: string;
    scopes?: string;
    user?: string;
    enable?: string;
    disable?: string;
    agent?: string;
    speak?: string;
    url?: string;
    key?: string;
    out?: string;
    plan?: string;
    reason?: string;
    amount?: string;
    actor?: string;
    host?: string;
    port?: string;
    transport?: string;
    username?: string;
    sources?: string;
    trunk?: string;
    type?: string;
    number?: string;
    'max-calls'?: string;
    'max-queue'?: string;
    email?: string;
    json?: boolean;
    help?: boolean;
  };
}

export { CliError };

export function requireFlag(args: CommandArgs, name: keyof CommandArgs['flags']): string {
  const value = args.flags[name];
  if (typeof value !== 'string' || !value.trim()) throw new CliError(`--${name} is required`);
  return value.trim();
}

export function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Opens the configured database with migrations applied, runs `work`, and closes it. */
export async function withDatabase<T>(work: (db: Database, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const db = await openDatabase({
    databaseUrl: config.databaseUrl,
    schema: config.databaseSchema,
    dataDir: config.dataDir,
    maxConnections: 2,
  });
  try {
    await migrate(db.sql, db.schema);
    return await work(db, config);
  } finally {
    await db.close();
  }
}

export function print(json: boolean | undefined, value: Record<string, unknown>, text: string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${text}\n`);
}

/**
 * Tells running servers to drop cached copies now: keys (`v1.auth.revoked`) and, when an organisation is named,
 * its presented record (`v1.org.changed`). Without NATS there is no bus to reach another process; the caches'
 * one-second lifetime applies the change instead.
 */
export async function broadcastRevocation(natsUrl: string | undefined, revocation: Revocation): Promise<void> {
  if (!natsUrl) return;
  const bus = await connectBus(natsUrl, 'parley-cli');
  try {
    bus.publish(subjects.authRevoked(), JSON.stringify(revocation));
    if ('organisationId' in revocation && !('userId' in revocation)) {
      bus.publish(subjects.organisationChanged(), JSON.stringify({ organisationId: revocation.organisationId }));
    }
    await bus.flush();
  } finally {
    await bus.close();
  }
}
