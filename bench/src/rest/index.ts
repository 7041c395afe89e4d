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
import { DEFAULT_POOL_SIZE } from '@parley/control-plane';
import { machineFacts } from '../machine.ts';
import { reportPage, writeResultsFile } from '../results-file.ts';
import {
  EXIT_FAILED,
  EXIT_INTERRUPTED,
  EXIT_OK,
  EXIT_USAGE,
  type Suite,
  type SuiteContext,
  type ExitCode,
} from '../suite.ts';
import { createFixture } from '../http-servers/fixture.ts';
import { buildReport, evaluateEndpoint, formatReport, type EndpointResult } from './report.ts';
import { forkServer } from '../http-servers/server-child.ts';
import { measureServer, WARMUP_SECONDS } from '../http-servers/measurement.ts';

export const ENDPOINTS = ['/api/v1/api-keys/me', '/api/v1/organisations'] as const;
/** The one-off requests that capture and compare the bodies; a healthy server answers in milliseconds. */
const CHECK_TIMEOUT_MS = 10_000;

export const restSuite: Suite = {
  name: 'rest',
  summary: 'REST API req/s and latency vs a bare Fastify route (needs DATABASE_URL; NATS_URL optional)',
  options: {
    'cpu-prof': {
      type: 'string',
      valueName: '<dir>',
      description: 'write V8 CPU profiles of the servers into <dir>/real and <dir>/baseline',
    },
    pool: {
      type: 'string',
      valueName: '<n>',
      description: `the app's Postgres pool size (default ${DEFAULT_POOL_SIZE}, the production default)`,
    },
    out: { type: 'string', valueName: '<dir>', description: 'where the report is written (default bench/results)' },
  },
  run: runRest,
};

async function runRest(context: SuiteContext): Promise<ExitCode> {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  if (!databaseUrl) {
    context.log(
      'The rest suite measures against a real Postgres: set DATABASE_URL, e.g.\n' +
        '  DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench -- rest',
    );
    return EXIT_USAGE;
  }
  const natsUrl = process.env.NATS_URL || undefined;
  const pool = context.extra.pool;
  const poolSize =
    pool === undefined
      ? DEFAULT_POOL_SIZE
      : typeof pool === 'string' && /^[1-9]\d{0,2}$/.test(pool)
        ? Number(pool)
        : undefined;
  if (poolSize === undefined) {
    context.log(`--pool must be a whole number from 1 to 999, got "${String(pool)}"`);
    return EXIT_USAGE;
  }
  const profileDir = context.extra['cpu-prof'];
  const nodeFlags = (kind: string) =>
    typeof profileDir === 'string'
      ? // One directory per server: under tsx a process has a module-loader thread too, with a profile of its own.
        ['--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, kind)}`]
      : [];

  const machine = machineFacts();
  const cleanups: (() => Promise<void>)[] = [];
  try {
    context.log('setting up: schema, migrations, organisation…');
    const fixture = await createFixture(databaseUrl);
    cleanups.push(() => fixture.close());
    context.log(`schema ${fixture.schema}; starting the control plane…`);
    const real = await forkServer(
      { kind: 'real', databaseUrl, schema: fixture.schema, natsUrl, poolSize },
      { nodeFlags: nodeFlags('real') },
    );
    cleanups.push(() => real.close());

    const authorization = { authorization: `Bearer ${fixture.key}` };
    const bodies = new Map<string, string>();
    for (const endpoint of ENDPOINTS) {
      const body = await fetchOk(context, real.url + endpoint, authorization);
      if (body === undefined) return fail(context, `${endpoint}: the real app did not answer 200 (see above)`);
      bodies.set(endpoint, body);
    }
    const baseline = await forkServer(
      {
        kind: 'baseline',
        routes: ENDPOINTS.map((endpoint) => ({ path: endpoint, body: JSON.parse(bodies.get(endpoint)!) })),
      },
      { nodeFlags: nodeFlags('baseline') },
    );
    cleanups.push(() => baseline.close());
    for (const endpoint of ENDPOINTS) {
      const body = await fetchOk(context, baseline.url + endpoint, {});
      if (body !== bodies.get(endpoint))
        return fail(context, `${endpoint}: the baseline's body differs from the real app's`);
    }
    if (profileDir)
      context.log(`profiling: real app pid ${real.pid}, baseline pid ${baseline.pid}, profiles into ${profileDir}`);

    const endpoints: EndpointResult[] = [];
    for (const endpoint of ENDPOINTS) {
      if (context.signal.aborted) return EXIT_INTERRUPTED;
      const baselineResult = await measureServer(context, baseline, { path: endpoint }, `bare Fastify GET ${endpoint}`);
      if (context.signal.aborted) return EXIT_INTERRUPTED;
      const realResult = await measureServer(
        context,
        real,
        { path: endpoint, headers: authorization },
        `Parley GET ${endpoint}`,
      );
      if (context.signal.aborted) return EXIT_INTERRUPTED;
      endpoints.push(
        evaluateEndpoint(`GET ${endpoint}`, Buffer.byteLength(bodies.get(endpoint)!), baselineResult, realResult),
      );
    }

    const report = buildReport(
      machine,
      {
        durationSeconds: context.options.durationSeconds,
        warmupSeconds: WARMUP_SECONDS,
        connections: context.options.connections,
        database: fixture.description,
        bus: natsUrl ? 'NATS' : 'in-process',
        poolSize,
      },
      endpoints,
    );
    const text = formatReport(report);
    context.out(text);
    if (context.options.json) context.out(JSON.stringify(report));
    const command = `npm run bench -- rest --connections ${context.options.connections} --duration ${context.options.durationSeconds} --pool ${poolSize}`;
    const out = typeof context.extra.out === 'string' ? context.extra.out : undefined;
    context.log(
      `report: ${await writeResultsFile('rest', machine, reportPage('REST API benchmark', machine, command, text), out)}`,
    );
    return report.failed ? EXIT_FAILED : EXIT_OK;
  } finally {
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch((error: unknown) => context.log(`cleanup failed: ${String(error)}`));
    }
  }
}

/** The body of a 200 answer, or undefined after logging what came instead. */
async function fetchOk(
  context: SuiteContext,
  url: string,
  headers: Record<string, string>,
): Promise<string | undefined> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(CHECK_TIMEOUT_MS) });
  const body = await response.text();
  if (response.status === 200) return body;
  context.log(`GET ${url} answered ${response.status}: ${body.slice(0, 500)}`);
  return undefined;
}

function fail(context: SuiteContext, message: string): ExitCode {
  context.log(`FAILED: ${message}`);
  return EXIT_FAILED;
}
