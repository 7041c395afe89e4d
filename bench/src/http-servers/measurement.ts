/**
 * One measured load run against a forked server, as the HTTP suites (rest, mcp) take it: a short unmeasured
 * warm-up, then the load generator's figures beside the server process's own CPU over the same run, and the checks
 * that decide whether a run counts.
 */
import { runLoad, type LoadOptions, type LoadResult } from '../http-load.ts';
import type { MachineFacts } from '../machine.ts';
import type { SuiteContext } from '../suite.ts';
import type { ServerChild } from './server-child.ts';

/** Unmeasured load before each measured run, so V8 has optimised the hot paths and pools are full. */
export const WARMUP_SECONDS = 2;
/**
 * A 1-minute load average at or above this share of the cores when the run starts means other work competes for
 * the CPU (server, load generator and Postgres already need every core), so the report says its figures are noisy.
 */
export const BUSY_LOAD_PER_CORE = 0.5;

/** One measured run: the load generator's view plus the server process's CPU over the same run. */
export interface Measurement extends LoadResult {
  /** CPU the server process used during the run, as a share of one core (all its threads together). */
  serverCpu: number;
  /** Server CPU time per answered request, in microseconds: the cost of one request, whatever the pace. */
  serverMicrosPerRequest: number;
}

/** What to load: the path on the server, and the method, body and headers of every request. */
export type LoadTarget = Pick<LoadOptions, 'method' | 'body' | 'headers'> & { path: string };

/** Warms up, then measures `target` on `server` for the suite's duration and connections; `label` names it in the log. */
export async function measureServer(
  context: SuiteContext,
  server: ServerChild,
  target: LoadTarget,
  label: string,
): Promise<Measurement> {
  const { connections, durationSeconds } = context.options;
  const load = {
    url: server.url + target.path,
    method: target.method,
    body: target.body,
    headers: target.headers,
    connections,
    signal: context.signal,
  };
  context.log(`${label}: ${WARMUP_SECONDS} s warm-up, ${durationSeconds} s measured…`);
  const warmup = await runLoad({ ...load, durationSeconds: WARMUP_SECONDS });
  if (warmup.errors || warmup.non2xx)
    context.log(`  warm-up saw ${warmup.errors} errors and ${warmup.non2xx} non-2xx answers`);
  const cpuBefore = await server.cpuMicros();
  const startedAt = process.hrtime.bigint();
  const result = await runLoad({ ...load, durationSeconds });
  const wallMicros = Number(process.hrtime.bigint() - startedAt) / 1_000;
  const serverMicros = (await server.cpuMicros()) - cpuBefore;
  return {
    ...result,
    serverCpu: serverMicros / wallMicros,
    serverMicrosPerRequest: serverMicros / Math.max(1, result.ok + result.non2xx),
  };
}

/** Why a run does not count (errors, timeouts, non-2xx answers, nothing answered); empty when it counts. */
export function failuresOf(label: string, result: LoadResult): string[] {
  const failures: string[] = [];
  if (result.errors > 0) failures.push(`${label}: ${result.errors} errors (${result.timeouts} timeouts)`);
  if (result.non2xx > 0) failures.push(`${label}: ${result.non2xx} non-2xx answers`);
  if (result.ok === 0) failures.push(`${label}: no 2xx answers`);
  return failures;
}

export function isBusy(machine: MachineFacts): boolean {
  return machine.loadAverage1m >= BUSY_LOAD_PER_CORE * machine.cores;
}
