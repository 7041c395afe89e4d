/**
 * `npm run bench -- rest`: GET /api/v1/api-keys/me and GET /api/v1/organisations of the real control plane (real
 * Postgres, a valid key) against a bare Fastify route answering the same JSON, measured in the same run.
 *
 * Layout: autocannon runs here, in the parent; each server runs in a process of its own (forked the same way, with
 * the same flags), so load generator and server never share an event loop and the two servers never share a heap,
 * GC or timers. Only the server being measured is under load; the other one sits idle in its own process. On the
 * two-core reference machine that leaves one core for autocannon and one for the server under test; Postgres,
 * which only the real app uses, competes for the same two cores, as it does on a small deployment.
 */
import path from 'node:path';
import { machineFacts } from '../machine.ts';
import { runLoad, type LoadResult } from '../http-load.ts';
import { EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, type Suite, type SuiteContext, type ExitCode } from '../suite.ts';
import { createFixture, type RestFixture } from './fixture.ts';
import { buildReport, evaluateEndpoint, formatReport, type EndpointResult } from './report.ts';
import { forkServer, type ServerChild } from './server-child.ts';

export const ENDPOINTS = ['/api/v1/api-keys/me', '/api/v1/organisations'] as const;
/** Unmeasured load before each measured run, so V8 has optimised the hot paths and pools are full. */
export const WARMUP_SECONDS = 2;

export const restSuite: Suite = {
  name: 'rest',
  summary: 'REST API req/s and latency vs a bare Fastify route (needs DATABASE_URL; NATS_URL optional)',
  options: {
    'cpu-prof': { type: 'string', valueName: '<dir>', description: 'write V8 CPU profiles of the servers into <dir>/real and <dir>/baseline' },
  },
  run: runRest,
};

async function runRest(context: SuiteContext): Promise<ExitCode> {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  if (!databaseUrl) {
    context.log('The rest suite measures against a real Postgres: set DATABASE_URL, e.g.\n' +
      '  DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench -- rest');
    return EXIT_USAGE;
  }
  const natsUrl = process.env.NATS_URL || undefined;
  const profileDir = context.extra['cpu-prof'];
  const nodeFlags = (kind: string) => typeof profileDir === 'string'
    // One directory per server: under tsx a process has a module-loader thread too, with a profile of its own.
    ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, kind)}`]
    : [];

  const machine = machineFacts();
  const cleanups: (() => Promise<void>)[] = [];
  try {
    context.log('setting up: schema, migrations, organisation…');
    const fixture = await createFixture(databaseUrl);
    cleanups.push(() => fixture.close());
    context.log(`schema ${fixture.schema}; starting the control plane…`);
    const real = await forkServer({ kind: 'real', databaseUrl, schema: fixture.schema, natsUrl }, { nodeFlags: nodeFlags('real') });
    cleanups.push(() => real.close());

    const authorization = { authorization: `Bearer ${fixture.key}` };
    const bodies = new Map<string, string>();
    for (const path of ENDPOINTS) {
      const body = await fetchOk(real.url + path, authorization);
      if (body === undefined) return fail(context, `${path}: the real app did not answer 200 (see above)`);
      bodies.set(path, body);
    }
    const baseline = await forkServer(
      { kind: 'baseline', routes: ENDPOINTS.map((path) => ({ path, body: JSON.parse(bodies.get(path)!) })) },
      { nodeFlags: nodeFlags('baseline') },
    );
    cleanups.push(() => baseline.close());
    for (const path of ENDPOINTS) {
      const body = await fetchOk(baseline.url + path, {});
      if (body !== bodies.get(path)) return fail(context, `${path}: the baseline's body differs from the real app's`);
    }
    if (profileDir) context.log(`profiling: real app pid ${real.pid}, baseline pid ${baseline.pid}, profiles into ${profileDir}`);

    const endpoints: EndpointResult[] = [];
    for (const path of ENDPOINTS) {
      const baselineResult = await measure(context, baseline, path, {}, 'bare Fastify');
      const realResult = await measure(context, real, path, authorization, 'Parley');
      if (context.signal.aborted) return EXIT_INTERRUPTED;
      endpoints.push(evaluateEndpoint(`GET ${path}`, baselineResult, realResult));
    }

    const report = buildReport(machine, {
      durationSeconds: context.options.durationSeconds,
      warmupSeconds: WARMUP_SECONDS,
      connections: context.options.connections,
      database: fixture.description,
      bus: natsUrl ? 'NATS' : 'in-process',
    }, endpoints);
    context.out(formatReport(report));
    if (context.options.json) context.out(JSON.stringify(report));
    return report.failed ? EXIT_FAILED : EXIT_OK;
  } finally {
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch((error: unknown) => context.log(`cleanup failed: ${String(error)}`));
    }
  }
}

async function measure(context: SuiteContext, server: ServerChild, path: string, headers: Record<string, string>, label: string): Promise<LoadResult> {
  const { connections, durationSeconds } = context.options;
  const load = { url: server.url + path, headers, connections, signal: context.signal };
  context.log(`${label} GET ${path}: ${WARMUP_SECONDS} s warm-up, ${durationSeconds} s measured…`);
  const warmup = await runLoad({ ...load, durationSeconds: WARMUP_SECONDS });
  if (warmup.errors || warmup.non2xx) context.log(`  warm-up saw ${warmup.errors} errors and ${warmup.non2xx} non-2xx answers`);
  return runLoad({ ...load, durationSeconds });
}

/** The body of a 200 answer, or undefined after logging what came instead. */
async function fetchOk(url: string, headers: Record<string, string>): Promise<string | undefined> {
  const response = await fetch(url, { headers });
  const body = await response.text();
  if (response.status === 200) return body;
  console.error(`GET ${url} answered ${response.status}: ${body.slice(0, 500)}`);
  return undefined;
}

function fail(context: SuiteContext, message: string): ExitCode {
  context.log(`FAILED: ${message}`);
  return EXIT_FAILED;
}

export type { RestFixture };
