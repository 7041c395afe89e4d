/**
 * `parley db shell [-- psql arguments]`: psql on Parley's database. With DATABASE_URL that server, with
 * PARLEY_DB_SCHEMA as the search path; otherwise the embedded PGlite: through the socket of the server running in the
 * data directory, or, with none running, served by this process for as long as psql runs (PGlite's files belong to
 * one process at a time).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../config.ts';
import { runningEmbeddedSocket } from '../../db/database.ts';
import {
  EMBEDDED_SOCKET_PORT,
  embeddedFilesPath,
  startEmbeddedPostgres,
  type EmbeddedPostgres,
} from '../../db/embedded-postgres.ts';
import { CliError, type CommandArgs } from '../command.ts';

const PSQL_MISSING =
  'psql is not installed; on Debian or Ubuntu: sudo apt-get install postgresql-client (or set PATH to include it)';

export async function runDb(args: CommandArgs): Promise<number> {
  const [sub, ...psqlArgs] = args.positionals;
  if (sub !== 'shell') throw new CliError('usage: parley db shell [-- psql arguments]');
  if (!onPath('psql')) throw new CliError(PSQL_MISSING);
  const config = loadConfig();
  // libpq reads the search path from PGOPTIONS, so `\dt` lists Parley's tables in a schema of its own too.
  const env: NodeJS.ProcessEnv = { ...process.env, PGAPPNAME: 'parley db shell' };
  if (config.databaseSchema !== 'public') env.PGOPTIONS = `-c search_path=${config.databaseSchema}`;
  if (config.databaseUrl) return psql([config.databaseUrl, ...psqlArgs], env);

  let served: EmbeddedPostgres | undefined;
  if (!(await runningEmbeddedSocket(config.dataDir))) {
    if (!fs.existsSync(embeddedFilesPath(config.dataDir))) {
      throw new CliError(`no embedded database in ${config.dataDir} yet: start Parley there first (npm start)`);
    }
    served = await startEmbeddedPostgres(config.dataDir, config.dataDir);
  }
  try {
    // -h with an absolute directory is a socket directory to libpq; PGlite answers as user and database `postgres`.
    const target = ['-h', config.dataDir, '-p', String(EMBEDDED_SOCKET_PORT), '-U', 'postgres', '-d', 'postgres'];
    return await psql([...target, ...psqlArgs], env);
  } finally {
    await served?.stop();
  }
}

/**
 * Runs psql on this terminal and resolves with its exit code. Node cannot exec, so it waits; Ctrl-C belongs to psql
 * (it cancels a query there), so this process ignores SIGINT meanwhile instead of dying on it.
 */
function psql(psqlArgs: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const ignore = () => {};
  process.on('SIGINT', ignore);
  return new Promise<number>((resolve, reject) => {
    const child = spawn('psql', psqlArgs, { stdio: 'inherit', env });
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new CliError(PSQL_MISSING) : error),
    );
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  }).finally(() => process.off('SIGINT', ignore));
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => {
    try {
      fs.accessSync(path.join(dir, command), fs.constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
