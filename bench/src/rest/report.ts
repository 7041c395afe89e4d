/**
 * The rest suite's verdict and its printed form: per endpoint, the baseline and the real app side by side, the
 * ratio of their throughputs, and whether each target is met. A run with errors or non-2xx answers is FAILED (it
 * measured something else); a target missed is MISSED (a finding, not a failure).
 */
import type { LoadResult } from '../http-load.ts';
import { describeMachine, type MachineFacts } from '../machine.ts';
import { formatTable } from '../table.ts';

/** Foundation issue target: the real endpoint keeps at least 60 % of a bare Fastify route's throughput. */
export const TARGET_MIN_RATIO = 0.6;
/** Foundation issue target: 99 % of real-endpoint answers within 10 ms at 10 connections. */
export const TARGET_MAX_P99_MS = 10;

export interface EndpointResult {
  /** e.g. `GET /api/v1/organisations` */
  endpoint: string;
  baseline: LoadResult;
  real: LoadResult;
  /** real req/s ÷ baseline req/s. */
  ratio: number;
  ratioMet: boolean;
  p99Met: boolean;
  /** Why the measurement does not count (errors, non-2xx, nothing answered); empty when it counts. */
  failures: string[];
}

export interface RestSettings {
  durationSeconds: number;
  warmupSeconds: number;
  connections: number;
  database: string;
  bus: 'NATS' | 'in-process';
}

export interface RestReport {
  suite: 'rest';
  machine: MachineFacts;
  settings: RestSettings;
  endpoints: EndpointResult[];
  failed: boolean;
  missed: boolean;
}

export function evaluateEndpoint(endpoint: string, baseline: LoadResult, real: LoadResult): EndpointResult {
  const ratio = baseline.requestsPerSecond > 0 ? real.requestsPerSecond / baseline.requestsPerSecond : Number.NaN;
  const failures = [...failuresOf('bare Fastify', baseline), ...failuresOf('Parley', real)];
  return {
    endpoint,
    baseline,
    real,
    ratio,
    ratioMet: ratio >= TARGET_MIN_RATIO,
    p99Met: real.p99Ms <= TARGET_MAX_P99_MS,
    failures,
  };
}

export function failuresOf(label: string, result: LoadResult): string[] {
  const failures: string[] = [];
  if (result.errors > 0) failures.push(`${label}: ${result.errors} errors (${result.timeouts} timeouts)`);
  if (result.non2xx > 0) failures.push(`${label}: ${result.non2xx} non-2xx answers`);
  if (result.ok === 0) failures.push(`${label}: no 2xx answers`);
  return failures;
}

export function buildReport(machine: MachineFacts, settings: RestSettings, endpoints: EndpointResult[]): RestReport {
  return {
    suite: 'rest',
    machine,
    settings,
    endpoints,
    failed: endpoints.some((e) => e.failures.length > 0),
    missed: endpoints.some((e) => !e.ratioMet || !e.p99Met),
  };
}

export function formatReport(report: RestReport): string {
  const { settings } = report;
  const header = ['endpoint', 'server', 'req/s', 'p50 ms', 'p99 ms', 'ratio', `ratio ≥ ${TARGET_MIN_RATIO.toFixed(2)}`, `p99 ≤ ${TARGET_MAX_P99_MS} ms`];
  const rows: string[][] = [header];
  for (const e of report.endpoints) {
    rows.push([e.endpoint, 'bare Fastify', rate(e.baseline.requestsPerSecond), ms(e.baseline.p50Ms), ms(e.baseline.p99Ms), '', '', '']);
    rows.push([e.endpoint, 'Parley', rate(e.real.requestsPerSecond), ms(e.real.p50Ms), ms(e.real.p99Ms), e.ratio.toFixed(2), verdict(e.ratioMet), verdict(e.p99Met)]);
  }
  const lines = [
    `rest: ${settings.connections} connections, ${settings.durationSeconds} s per run after ${settings.warmupSeconds} s warm-up; ` +
      `Postgres ${settings.database}; bus ${settings.bus}`,
    `machine: ${describeMachine(report.machine)}`,
    '',
    formatTable(rows, ['left', 'left', 'right', 'right', 'right', 'right', 'left', 'left']),
    '',
  ];
  const failures = report.endpoints.flatMap((e) => e.failures.map((f) => `${e.endpoint}: ${f}`));
  const missed = report.endpoints.flatMap((e) => [
    ...(e.ratioMet ? [] : [`${e.endpoint}: ratio ${e.ratio.toFixed(2)} < ${TARGET_MIN_RATIO.toFixed(2)}`]),
    ...(e.p99Met ? [] : [`${e.endpoint}: p99 ${ms(e.real.p99Ms)} ms > ${TARGET_MAX_P99_MS} ms`]),
  ]);
  if (failures.length) lines.push('FAILED: the run saw errors, so its figures do not count:', ...failures.map((f) => `  ${f}`));
  if (missed.length) lines.push(`MISSED ${missed.length} target${missed.length > 1 ? 's' : ''}:`, ...missed.map((m) => `  ${m}`));
  if (!failures.length && !missed.length) lines.push('all targets met');
  return lines.join('\n');
}

function verdict(met: boolean): string {
  return met ? 'met' : 'MISSED';
}

function rate(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–';
}

function ms(value: number): string {
  return Number.isFinite(value) ? value.toFixed(2) : '–';
}
