/** Runs the real `parley` command (bin/parley.js) as a child process, the way an operator does. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const PARLEY_BIN = fileURLToPath(new URL('../../../bin/parley.js', import.meta.url));
/** The embedded database boots in a few seconds; a loaded two-core CI machine can take several times that. */
const READY_TIMEOUT_MS = 60_000;

export type Env = Record<string, string | undefined>;

/** The environment a child gets: this process's, minus the variables that would point it elsewhere, plus `env`. */
export function childEnv(env: Env): NodeJS.ProcessEnv {
  const base: Env = { ...process.env };
  for (const name of [
    'DATABASE_URL',
    'NATS_URL',
    'PARLEY_DB_SCHEMA',
    'PARLEY_DATA_DIR',
    'PORT',
    'ENGINE_PORT',
    'SIP_PORT',
    'SIP_HEALTH_PORT',
    'RTP_PORT_MIN',
    'RTP_PORT_MAX',
    'PARLEY_ROLES',
    'PARLEY_PUBLIC_URL',
    'PARLEY_MEDIA_URL',
    'WORKER_HEALTH_PORT',
    'PARLEY_METRICS_TOKEN',
    // libpq's own: they would point the psql of `parley db shell` elsewhere.
    'PGHOST',
    'PGPORT',
    'PGUSER',
    'PGDATABASE',
    'PGOPTIONS',
  ])
    delete base[name];
  return Object.fromEntries(
    Object.entries({ ...base, LOG_LEVEL: 'warn', ...env }).filter(([, v]) => v !== undefined),
  ) as NodeJS.ProcessEnv;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `parley <args>`; `input`, when given, is written to its stdin (then closed). */
export function runCli(args: string[], env: Env, input?: string): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PARLEY_BIN, ...args], {
      env: childEnv(env),
      stdio: 'pipe',
    });
    // Without input, stdin is closed at once: a command reading it sees end of file, as with `< /dev/null`.
    child.stdin.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface RunningServer {
  url: string;
  child: ChildProcess;
  output: () => string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function startServer(env: Env, args: string[] = []): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [PARLEY_BIN, 'start', ...args], {
      env: childEnv({ PORT: '0', ENGINE_PORT: '0', SIP_PORT: '0', SIP_HEALTH_PORT: '0', ...env }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`parley start was not ready within ${READY_TIMEOUT_MS} ms:\n${output}`));
    }, READY_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Parley ready at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({
          url: match[1]!,
          child,
          output: () => output,
          async stop(signal = 'SIGTERM') {
            if (child.exitCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`parley start exited with ${code} before it was ready:\n${output}`));
    });
  });
}
