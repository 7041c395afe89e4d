/**
 * The MCP door fuzzed like the REST routes (rest-fuzz.test.ts): every tool the server lists is called with
 * arguments generated from its own input schema (as tools/list gives it), valid-ish values mixed with hostile ones,
 * and sometimes arguments that are not an object at all. Tools are enumerated from the server, so a new tool is
 * fuzzed without being listed. Every answer must be JSON-RPC, never an internal error, never a REST 5xx passed
 * through as a tool result, without stack traces or server paths, in bounded time (issue 23, the other doors).
 *
 * Long run: PARLEY_FUZZ_RUNS=500 PARLEY_FUZZ_SEED=$RANDOM npx vitest run test/fuzz/mcp-fuzz.test.ts
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestApp } from '../support/app.ts';
import { startBusServices } from '../support/isolation/bus-services.ts';
import { seedTenant } from '../support/isolation/tenants.ts';
import { createIsolatedBus } from '../support/workers.ts';
import { ANSWER_TIME_LIMIT_MS, problemsOf } from './answer-checks.ts';
import { hostileValue } from './hostile-values.ts';
import { fieldValue } from './schema-arbitrary.ts';

const RUNS = Number(process.env.PARLEY_FUZZ_RUNS ?? 25);
const SEED = Number(process.env.PARLEY_FUZZ_SEED ?? 20261127);

const bus = await createIsolatedBus();
const t = await startTestApp({ bus, rateLimits: { mcp: 1_000_000, callPlacement: 1_000_000, widget: 1_000_000 } });
const services = await startBusServices(bus);
const tenant = await seedTenant(t.db.sql, 'Fuzzed over MCP');
afterAll(async () => {
  await services.close();
  await t.close();
  await bus.close();
});

let nextId = 1;
async function rpc(method: string, params: unknown) {
  const started = performance.now();
  const res = await t.app.inject({
    method: 'POST',
    url: '/mcp',
    headers: {
      authorization: `Bearer ${tenant.ownerKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    payload: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  });
  return { statusCode: res.statusCode, headers: res.headers, body: res.body, elapsedMs: performance.now() - started };
}

interface ListedTool {
  name: string;
  inputSchema: Record<string, unknown>;
}
const listed = JSON.parse((await rpc('tools/list', {})).body) as { result: { tools: ListedTool[] } };
const tools = listed.result.tools;

/** What an MCP answer must not be, beyond what every HTTP answer must not be. */
function mcpProblems(answer: Awaited<ReturnType<typeof rpc>>): string[] {
  const problems = problemsOf(answer, { ownRefusals: () => true });
  if (answer.statusCode !== 200) return [...problems, `answered HTTP ${answer.statusCode}`];
  const body = JSON.parse(answer.body) as {
    error?: { code: number; message: string };
    result?: { content?: Array<{ type: string; text?: string }> };
  };
  if (body.error?.code === -32603) problems.push(`internal error: ${body.error.message}`);
  const text = (body.result?.content ?? []).map((part) => part.text ?? '').join('\n');
  // REST refusals come back as tool text, "<service> API <status>: …" (spec document 3, MCP errors).
  const failed = /\bAPI 5\d\d\b/.exec(text);
  if (failed) problems.push(`passed on a server failure: ${text.slice(0, 300)}`);
  return problems;
}

describe('MCP fuzz', () => {
  it('lists the tools to fuzz', () => {
    expect(tools.length).toBeGreaterThan(10);
  });

  tools.forEach((tool, index) => {
    it(tool.name, { timeout: 120_000 }, async () => {
      const args = fc.oneof(
        { weight: 9, arbitrary: fieldValue(tool.inputSchema, '', { ids: tenant.ids, hostility: 0.3 }) },
        { weight: 1, arbitrary: hostileValue },
      );
      await fc.assert(
        fc.asyncProperty(args, fc.boolean(), async (value, confirm) => {
          const withConfirm =
            confirm && typeof value === 'object' && value !== null && !Array.isArray(value)
              ? { ...value, confirm }
              : value;
          const answer = await rpc('tools/call', { name: tool.name, arguments: withConfirm });
          const problems = mcpProblems(answer);
          if (problems.length) {
            throw new Error(`${problems.join('; ')}\n  arguments: ${JSON.stringify(withConfirm)?.slice(0, 400)}`);
          }
        }),
        { numRuns: RUNS, seed: SEED + index, endOnFailure: true },
      );
    });
  });

  it('answers in bounded time even for a tool that does not exist', async () => {
    const answer = await rpc('tools/call', { name: 'no_such_tool\u0000', arguments: {} });
    expect(mcpProblems(answer)).toEqual([]);
    expect(answer.elapsedMs).toBeLessThan(ANSWER_TIME_LIMIT_MS);
  });
});
