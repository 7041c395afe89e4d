/**
 * The rest suite's verdict and its printed form: per endpoint, the baseline and the real app side by side, the
 * ratio of their throughputs, and whether each target is met. A run with errors or non-2xx answers is FAILED (it
 * measured something else); a target missed is MISSED (a finding, not a failure).
 */
import { failuresOf, isBusy, type Measurement } from '../http-servers/measurement.ts';
import { describeMachine, type MachineFacts } from '../machine.ts';
import { formatTable } from '../table.ts';

export type { Measurement };

/** Foundation issue target: the real endpoint keeps at least 60 % of a bare Fastify route's throughput. */
export const TARGET_MIN_RATIO = 0.6;
/** Foundation issue target: 99 % of real-endpoint answers within 10 ms at 10 connections. */
export const TARGET_MAX_P99_MS = 10;
/**
 * A load generator using this share of its core or more is likely what set the pace: a baseline measured that way
 * is too low, and the ratio against it too flattering.
 */
export const GENERATOR_SATURATED_CPU = 0.9;

export interface EndpointResult {
  /** e.g. `GET /api/v1/organisations` */
  endpoint: string;
  /** Size of the JSON body both servers answer. */
  bodyBytes: number;
  baseline: Measurement;
  real: Measurement;
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
  /** Postgres pool size of the app under test. */
  poolSize: number;
}

export interface RestReport {
  suite: 'rest';
  machine: MachineFacts;
  settings: RestSettings;
  endpoints: EndpointResult[];
  failed: boolean;
  missed: boolean;
}

export function evaluateEndpoint(
  endpoint: string,
  bodyBytes: number,
  baseline: Measurement,
  real: Measurement,
): EndpointResult {
  const ratio = baseline.requestsPerSecond > 0 ? real.requestsPerSecond / baseline.requestsPerSecond : Number.NaN;
  const failures = [...failuresOf('bare Fastify', baseline), ...failuresOf('Parley', real)];
  return {
    endpoint,
    bodyBytes,
    baseline,
    real,
    ratio,
    ratioMet: ratio >= TARGET_MIN_RATIO,
    p99Met: real.p99Ms <= TARGET_MAX_P99_MS,
    failures,
  };
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
  const header = [
    'endpoint',
    'server',
    'req/s',
    'p50 ms',
    'p99 ms',
    'srv CPU',
    'srv µs/req',
    'gen CPU',
    'ratio',
    `ratio ≥ ${TARGET_MIN_RATIO.toFixed(2)}`,
    `p99 ≤ ${TARGET_MAX_P99_MS} ms`,
  ];
  const rows: string[][] = [header];
  const figures = (m: Measurement) => [
    rate(m.requestsPerSecond),
    ms(m.p50Ms),
    ms(m.p99Ms),
    percent(m.serverCpu),
    micros(m.serverMicrosPerRequest),
    percent(m.generatorCpu),
  ];
  for (const e of report.endpoints) {
    rows.push([e.endpoint, 'bare Fastify', ...figures(e.baseline), '', '', '']);
    rows.push([e.endpoint, 'Parley', ...figures(e.real), e.ratio.toFixed(2), verdict(e.ratioMet), verdict(e.p99Met)]);
  }
  const lines = [
    `rest: ${settings.connections} connections, ${settings.durationSeconds} s per run after ${settings.warmupSeconds} s warm-up; ` +
      `Postgres ${settings.database} (pool ${settings.poolSize}); bus ${settings.bus}`,
    `machine: ${describeMachine(report.machine)}`,
    '',
    formatTable(rows, ['left', 'left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left', 'left']),
    '',
    `bodies: ${report.endpoints.map((e) => `${e.endpoint} ${e.bodyBytes.toLocaleString('en-US')} B`).join(', ')}`,
  ];
  for (const e of report.endpoints.filter((e) => e.baseline.generatorCpu >= GENERATOR_SATURATED_CPU)) {
    lines.push(
      `note: the load generator used ${percent(e.baseline.generatorCpu)} of its core on the ${e.endpoint} baseline: ` +
        'the baseline may be held back by the generator, which flatters that ratio',
    );
  }
  if (isBusy(report.machine)) {
    lines.push(
      `note: load ${report.machine.loadAverage1m} on ${report.machine.cores} cores when the run started: ` +
        'other work competed for the CPU, so these figures are noisy',
    );
  }
  const failures = report.endpoints.flatMap((e) => e.failures.map((f) => `${e.endpoint}: ${f}`));
  const missed = report.endpoints.flatMap((e) => [
    ...(e.ratioMet ? [] : [`${e.endpoint}: ratio ${e.ratio.toFixed(2)} < ${TARGET_MIN_RATIO.toFixed(2)}`]),
    ...(e.p99Met ? [] : [`${e.endpoint}: p99 ${ms(e.real.p99Ms)} ms > ${TARGET_MAX_P99_MS} ms`]),
  ]);
  if (failures.length)
    lines.push('FAILED: the run saw errors, so its figures do not count:', ...failures.map((f) => `  ${f}`));
  if (missed.length)
    lines.push(`MISSED ${missed.length} target${missed.length > 1 ? 's' : ''}:`, ...missed.map((m) => `  ${m}`));
  if (!failures.length && !missed.length) lines.push('all targets met');
  return lines.join('\n');
}

function verdict(met: boolean): string {
  return met ? 'met' : 'MISSED';
}

function rate(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–';
}

function percent(share: number): string {
  return Number.isFinite(share) ? `${Math.round(share * 100)} %` : '–';
}

function micros(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–';
}

function ms(value: number): string {
  return Number.isFinite(value) ? value.toFixed(2) : '–';
}
