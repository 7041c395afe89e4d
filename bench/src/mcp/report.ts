/**
 * The mcp suite's verdict and its printed form: per request, bare Fastify answering the same body and Parley side by
 * side, their throughput ratio, and MCP's own cost — server CPU per tools/call beyond the REST request it makes. The
 * issue sets no MCP target, so nothing is MISSED; a run with errors, non-2xx answers or failed calls is FAILED.
 */
import { describeMachine, type MachineFacts } from '../machine.ts';
import { failuresOf, isBusy, type Measurement } from '../http-servers/measurement.ts';
import { formatTable } from '../table.ts';

export interface RequestResult {
  label: string;
  bodyBytes: number;
  baseline: Measurement;
  real: Measurement;
  /** Parley req/s ÷ bare Fastify req/s. */
  ratio: number;
  failures: string[];
}

export interface McpSettings {
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  database: string;
  bus: 'NATS' | 'in-process';
  poolSize: number;
  agents: number;
}

export interface McpReport {
  suite: 'mcp';
  machine: MachineFacts;
  settings: McpSettings;
  requests: RequestResult[];
  /** Server µs per tools/call agents_list minus µs per the REST request behind it: what MCP adds. */
  mcpOverheadMicros: number | undefined;
  failed: boolean;
}

export function evaluateRequest(
  label: string,
  bodyBytes: number,
  baseline: Measurement,
  real: Measurement,
): RequestResult {
  return {
    label,
    bodyBytes,
    baseline,
    real,
    ratio: baseline.requestsPerSecond > 0 ? real.requestsPerSecond / baseline.requestsPerSecond : Number.NaN,
    failures: [...failuresOf('bare Fastify', baseline), ...failuresOf('Parley', real)],
  };
}

export function buildReport(
  machine: MachineFacts,
  settings: McpSettings,
  requests: RequestResult[],
  toolCall: string,
  rest: string,
): McpReport {
  const call = requests.find((r) => r.label === toolCall);
  const route = requests.find((r) => r.label === rest);
  return {
    suite: 'mcp',
    machine,
    settings,
    requests,
    mcpOverheadMicros: call && route ? call.real.serverMicrosPerRequest - route.real.serverMicrosPerRequest : undefined,
    failed: requests.some((r) => r.failures.length > 0),
  };
}

export function formatReport(report: McpReport): string {
  const { settings } = report;
  const rows: string[][] = [
    ['request', 'server', 'req/s', 'p50 ms', 'p99 ms', 'srv CPU', 'srv µs/req', 'gen CPU', 'ratio'],
  ];
  const figures = (m: Measurement) => [
    whole(m.requestsPerSecond),
    fixed(m.p50Ms),
    fixed(m.p99Ms),
    percent(m.serverCpu),
    whole(m.serverMicrosPerRequest),
    percent(m.generatorCpu),
  ];
  for (const r of report.requests) {
    rows.push([r.label, 'bare Fastify', ...figures(r.baseline), '']);
    rows.push([r.label, 'Parley', ...figures(r.real), r.ratio.toFixed(2)]);
  }
  const lines = [
    `mcp: ${settings.connections} connections, ${settings.durationSeconds} s per run after ${settings.warmupSeconds} s warm-up; ` +
      `Postgres ${settings.database} (pool ${settings.poolSize}); bus ${settings.bus}; ${settings.agents} agents`,
    `machine: ${describeMachine(report.machine)}`,
    '',
    formatTable(rows, ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right']),
    '',
    `bodies: ${report.requests.map((r) => `${r.label} ${r.bodyBytes.toLocaleString('en-US')} B`).join(', ')}`,
  ];
  if (report.mcpOverheadMicros !== undefined && Number.isFinite(report.mcpOverheadMicros)) {
    lines.push(
      `MCP's own cost per tools/call (server CPU beyond the REST request it makes): ${whole(report.mcpOverheadMicros)} µs`,
    );
  }
  if (isBusy(report.machine)) {
    lines.push(
      `note: load ${report.machine.loadAverage1m} on ${report.machine.cores} cores when the run started: other work competed for the CPU`,
    );
  }
  const failures = report.requests.flatMap((r) => r.failures.map((f) => `${r.label}: ${f}`));
  if (failures.length)
    lines.push('FAILED: the run saw errors, so its figures do not count:', ...failures.map((f) => `  ${f}`));
  else lines.push('no errors; the issue sets no MCP target (figures for comparison)');
  return lines.join('\n');
}

function whole(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–';
}

function fixed(value: number): string {
  return Number.isFinite(value) ? value.toFixed(2) : '–';
}

function percent(share: number): string {
  return Number.isFinite(share) ? `${Math.round(share * 100)} %` : '–';
}
