import { describe, expect, it } from 'vitest';
import type { MachineFacts } from '../machine.ts';
import type { Measurement } from '../http-servers/measurement.ts';
import { buildReport, evaluateRequest, formatReport, type McpSettings } from './report.ts';
import { answerProblem } from './requests.ts';

const machine: MachineFacts = {
  cpuModel: 'Test CPU',
  cores: 2,
  node: 'v20.0.0',
  platform: 'linux x64',
  memoryGiB: 8,
  loadAverage1m: 0.1,
  date: '2026-01-01T00:00:00.000Z',
};
const settings: McpSettings = {
  durationSeconds: 10,
  warmupSeconds: 2,
  connections: 10,
  database: 'postgres://db/test',
  bus: 'in-process',
  poolSize: 10,
  agents: 20,
};

function load(overrides: Partial<Measurement> = {}): Measurement {
  return {
    requestsPerSecond: 10_000,
    p50Ms: 0.5,
    p99Ms: 2,
    maxMs: 5,
    ok: 100_000,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    durationSeconds: 10,
    generatorCpu: 0.5,
    serverCpu: 0.8,
    serverMicrosPerRequest: 80,
    ...overrides,
  };
}

describe('the mcp report', () => {
  it("computes each ratio and MCP's own cost beyond the REST request behind the tool", () => {
    const call = evaluateRequest(
      'MCP tools/call agents_list',
      30_000,
      load(),
      load({ requestsPerSecond: 500, serverMicrosPerRequest: 2_500 }),
    );
    const rest = evaluateRequest(
      'REST GET /voice/agents',
      25_000,
      load(),
      load({ requestsPerSecond: 1_000, serverMicrosPerRequest: 1_200 }),
    );
    expect(call.ratio).toBeCloseTo(0.05);
    const report = buildReport(machine, settings, [call, rest], 'MCP tools/call agents_list', 'REST GET /voice/agents');
    expect(report.mcpOverheadMicros).toBe(1_300);
    expect(report.failed).toBe(false);
    const text = formatReport(report);
    expect(text).toContain("MCP's own cost per tools/call (server CPU beyond the REST request it makes): 1,300 µs");
    expect(text).toMatch(/MCP tools\/call agents_list\s+Parley\s+500 /);
  });

  it('fails a run with errors on either side', () => {
    const result = evaluateRequest('MCP tools/list', 100, load(), load({ non2xx: 3 }));
    const report = buildReport(machine, settings, [result], 'x', 'y');
    expect(report.failed).toBe(true);
    expect(report.mcpOverheadMicros).toBeUndefined();
    expect(formatReport(report)).toContain('MCP tools/list: Parley: 3 non-2xx answers');
  });
});

describe('answerProblem', () => {
  it('accepts a JSON-RPC result and names HTTP, protocol and tool errors', () => {
    expect(answerProblem(200, '{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}')).toBeUndefined();
    expect(answerProblem(401, 'no')).toBe('HTTP 401: no');
    expect(answerProblem(200, '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}')).toBe(
      'JSON-RPC error: Method not found',
    );
    expect(
      answerProblem(
        200,
        '{"jsonrpc":"2.0","id":1,"result":{"isError":true,"content":[{"type":"text","text":"Agents API 403: x"}]}}',
      ),
    ).toBe('tool error: Agents API 403: x');
    expect(answerProblem(200, 'nope')).toBe('not JSON: nope');
  });
});
