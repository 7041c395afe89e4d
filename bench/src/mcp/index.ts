/**
 * `npm run bench -- mcp`: the MCP server's tools/list and tools/call (agents_list) on the real control plane (real
 * Postgres, a valid key, 20 agents), and the REST route that tool calls, each beside a bare Fastify route answering
 * the same body, measured in the same run. Layout as the rest suite: autocannon here, each server in a process of
 * its own with the same flags. The per-connection MCP limit is lifted for the run (it would stop the load at once).
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
  type ExitCode,
  type Suite,
  type SuiteContext,
} from '../suite.ts';
import { createFixture } from '../http-servers/fixture.ts';
import { forkServer } from '../http-servers/server-child.ts';
import { measureServer, WARMUP_SECONDS } from '../http-servers/measurement.ts';
import { buildReport, evaluateRequest, formatReport, type RequestResult } from './report.ts';
import { answerProblem, FIXTURE_AGENTS, REQUESTS, requestHeaders, type MeasuredRequest } from './requests.ts';

/** The one-off requests that capture and compare the bodies. */
const CHECK_TIMEOUT_MS = 10_000;
/** Far above what the load can reach in a run: the limit must not be what is measured. */
const LIFTED_MCP_LIMIT = 100_000_000;

export const mcpSuite: Suite = {
  name: 'mcp',
  summary:
    'MCP tools/list and tools/call req/s and latency vs a bare Fastify route (needs DATABASE_URL; NATS_URL optional)',
  options: {
    'cpu-prof': {
      type: 'string',
      valueName: '<dir>',
      description: 'write V8 CPU profiles of the servers into <dir>/real and <dir>/baseline',
    },
    out: { type: 'string', valueName: '<dir>', description: 'where the report is written (default bench/results)' },
  },
  run: runMcp,
};

async function runMcp(context: SuiteContext): Promise<ExitCode> {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  if (!databaseUrl) {
    context.log(
      'The mcp suite measures against a real Postgres: set DATABASE_URL, e.g.\n' +
        '  DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench -- mcp',
    );
    return EXIT_USAGE;
  }
  const natsUrl = process.env.NATS_URL || undefined;
  const profileDir = context.extra['cpu-prof'];
  const nodeFlags = (kind: string) =>
    typeof profileDir === 'string' ? ['--cpu-prof', `--cpu-prof-dir=${path.join(profileDir, kind)}`] : [];
  const machine = machineFacts();
  const cleanups: (() => Promise<void>)[] = [];
  try {
    context.log(`setting up: schema, migrations, organisation, ${FIXTURE_AGENTS} agents…`);
    const fixture = await createFixture(databaseUrl, { agents: FIXTURE_AGENTS });
    cleanups.push(() => fixture.close());
    const real = await forkServer(
      {
        kind: 'real',
        databaseUrl,
        schema: fixture.schema,
        natsUrl,
        poolSize: DEFAULT_POOL_SIZE,
        rateLimits: { mcp: LIFTED_MCP_LIMIT },
      },
      { nodeFlags: nodeFlags('real') },
    );
    cleanups.push(() => real.close());

    const bodies = new Map<MeasuredRequest, string>();
    for (const request of REQUESTS) {
      const body = await answer(context, real.url, request, requestHeaders(request, fixture.key));
      if (body === undefined) return fail(context, `${request.label}: the real app did not answer it (see above)`);
      bodies.set(request, body);
    }
    const baseline = await forkServer(
      {
        kind: 'baseline',
        routes: REQUESTS.map((r) => ({ method: r.method, path: r.baselinePath, body: JSON.parse(bodies.get(r)!) })),
      },
      { nodeFlags: nodeFlags('baseline') },
    );
    cleanups.push(() => baseline.close());
    for (const request of REQUESTS) {
      const body = await answer(
        context,
        baseline.url,
        { ...request, path: request.baselinePath },
        requestHeaders(request, fixture.key),
      );
      if (body !== bodies.get(request))
        return fail(context, `${request.label}: the baseline's body differs from the real app's`);
    }

    const results: RequestResult[] = [];
    for (const request of REQUESTS) {
      const headers = requestHeaders(request, fixture.key);
      if (context.signal.aborted) return EXIT_INTERRUPTED;
      const baselineResult = await measureServer(
        context,
        baseline,
        { ...request, path: request.baselinePath, headers },
        `bare Fastify ${request.label}`,
      );
      if (context.signal.aborted) return EXIT_INTERRUPTED;
      const realResult = await measureServer(context, real, { ...request, headers }, `Parley ${request.label}`);
      if (context.signal.aborted) return EXIT_INTERRUPTED;
      const result = evaluateRequest(
        request.label,
        Buffer.byteLength(bodies.get(request)!),
        baselineResult,
        realResult,
      );
      // autocannon counts a 200 as a success; a JSON-RPC or tool error is a 200 too, so the answer is checked after the load.
      if ((await answer(context, real.url, request, headers)) === undefined)
        result.failures.push('Parley: the answer after the load was an error');
      results.push(result);
    }

    const report = buildReport(
      machine,
      {
        durationSeconds: context.options.durationSeconds,
        warmupSeconds: WARMUP_SECONDS,
        connections: context.options.connections,
        database: fixture.description,
        bus: natsUrl ? 'NATS' : 'in-process',
        poolSize: DEFAULT_POOL_SIZE,
        agents: FIXTURE_AGENTS,
      },
      results,
      'MCP tools/call agents_list',
      'REST GET /voice/agents',
    );
    const text = formatReport(report);
    context.out(text);
    if (context.options.json) context.out(JSON.stringify(report));
    const command = `npm run bench -- mcp --connections ${context.options.connections} --duration ${context.options.durationSeconds}`;
    const out = typeof context.extra.out === 'string' ? context.extra.out : undefined;
    context.log(
      `report: ${await writeResultsFile('mcp', machine, reportPage('MCP server benchmark', machine, command, text), out)}`,
    );
    return report.failed ? EXIT_FAILED : EXIT_OK;
  } finally {
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch((error: unknown) => context.log(`cleanup failed: ${String(error)}`));
    }
  }
}

/** The body of a successful answer, or undefined after logging what came instead. */
async function answer(
  context: SuiteContext,
  baseUrl: string,
  request: MeasuredRequest,
  headers: Record<string, string>,
): Promise<string | undefined> {
  const response = await fetch(baseUrl + request.path, {
    method: request.method,
    headers,
    body: request.body,
    signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
  });
  const body = await response.text();
  const problem = answerProblem(response.status, body);
  if (problem === undefined) return body;
  context.log(`${request.method} ${baseUrl}${request.path} (${request.label}): ${problem}`);
  return undefined;
}

function fail(context: SuiteContext, message: string): ExitCode {
  context.log(`FAILED: ${message}`);
  return EXIT_FAILED;
}
