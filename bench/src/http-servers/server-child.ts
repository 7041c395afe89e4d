/**
 * Forks a server process (server-process.ts) and talks to it. Both the real app and the baseline are started
 * through here with the same Node flags, so they get identical treatment.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FromServer, ServerSpec, ToServer } from './server-messages.ts';

/** Building the real app loads and compiles the control plane through tsx: seconds on a cold two-core machine. */
const START_TIMEOUT_MS = 60_000;
/** Closing waits for the pool and the bus to end; past this the process is killed (the schema is dropped anyway). */
const CLOSE_TIMEOUT_MS = 10_000;

const ENTRY = fileURLToPath(new URL('./server-process.ts', import.meta.url));

export interface ServerChild {
  readonly url: string;
  readonly pid: number;
  /** CPU time the server process has used so far, in microseconds (asked between runs, never during one). */
  cpuMicros(): Promise<number>;
  close(): Promise<void>;
}

export interface ForkOptions {
  /** Extra Node flags for the child, e.g. `--cpu-prof`. */
  nodeFlags?: readonly string[];
}

export async function forkServer(spec: ServerSpec, options: ForkOptions = {}): Promise<ServerChild> {
  const child = fork(ENTRY, [], {
    // The parent's own flags (`--import tsx`) make the child load TypeScript the same way.
    execArgv: [...process.execArgv, ...(options.nodeFlags ?? [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const url = await waitForListening(child, spec);
    return { url, pid: child.pid!, cpuMicros: () => askCpu(child), close: () => closeChild(child, exited) };
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    throw error;
  }
}

function waitForListening(child: ChildProcess, spec: ServerSpec): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => done(new Error(`${spec.kind} server did not start within ${START_TIMEOUT_MS} ms`)),
      START_TIMEOUT_MS,
    );
    const onMessage = (message: FromServer) => {
      if (message.type === 'listening') done(undefined, message.url);
      else if (message.type === 'failed') done(new Error(`${spec.kind} server failed to start: ${message.message}`));
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      done(new Error(`${spec.kind} server exited while starting (code ${code}, signal ${signal})`));
    function done(error: Error | undefined, url?: string) {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
      if (error) reject(error);
      else resolve(url!);
    }
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.send({ type: 'start', spec } satisfies ToServer);
  });
}

function askCpu(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: FromServer) => {
      if (message.type !== 'cpu-usage') return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message.micros);
    };
    const onExit = () => {
      child.off('message', onMessage);
      reject(new Error('server process exited'));
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.send({ type: 'cpu-usage' } satisfies ToServer);
  });
}

async function closeChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  if (child.connected) child.send({ type: 'close' } satisfies ToServer);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), CLOSE_TIMEOUT_MS);
  });
  const late = await Promise.race([exited.then(() => false), timedOut]);
  clearTimeout(timer);
  if (late) {
    child.kill('SIGKILL');
    await exited;
  }
}
