import { describe, expect, it } from 'vitest';
import type { MachineFacts } from '../machine.ts';
import {
  buildReport,
  evaluateEndpoint,
  formatReport,
  TARGET_MAX_P99_MS,
  type Measurement,
  type RestSettings,
} from './report.ts';

const machine: MachineFacts = {
  cpuModel: 'Test CPU',
  cores: 2,
  node: 'v20.0.0',
  platform: 'linux x64',
  memoryGiB: 8,
  loadAverage1m: 0.1,
  date: '2026-01-01T00:00:00.000Z',
};
const settings: RestSettings = {
  durationSeconds: 10,
  warmupSeconds: 2,
  connections: 10,
  database: 'postgres://db/test',
  bus: 'in-process',
  poolSize: 10,
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

describe('evaluateEndpoint', () => {
  it('meets both targets at exactly 60 % and exactly the p99 limit', () => {
    const result = evaluateEndpoint(
      'GET /x',
      100,
      load(),
      load({ requestsPerSecond: 6_000, p99Ms: TARGET_MAX_P99_MS }),
    );
    expect(result.ratio).toBeCloseTo(0.6);
    expect(result).toMatchObject({ ratioMet: true, p99Met: true, failures: [] });
  });

  it('misses the ratio below 60 % and the latency above the limit', () => {
    const result = evaluateEndpoint('GET /x', 100, load(), load({ requestsPerSecond: 5_999, p99Ms: 10.01 }));
    expect(result).toMatchObject({ ratioMet: false, p99Met: false });
  });

  it('counts errors, timeouts and non-2xx answers on either side as failures', () => {
    const result = evaluateEndpoint('GET /x', 100, load({ errors: 2, timeouts: 1 }), load({ non2xx: 5 }));
    expect(result.failures).toEqual(['bare Fastify: 2 errors (1 timeouts)', 'Parley: 5 non-2xx answers']);
  });

  it('has no ratio when the baseline answered nothing', () => {
    const result = evaluateEndpoint('GET /x', 100, load({ requestsPerSecond: 0, ok: 0 }), load());
    expect(result.ratio).toBeNaN();
    expect(result.ratioMet).toBe(false);
    expect(result.failures).toEqual(['bare Fastify: no 2xx answers']);
  });
});

describe('formatReport', () => {
  it('prints aligned rows, the ratio on the Parley row, and MISSED for a missed target', () => {
    const report = buildReport(machine, settings, [
      evaluateEndpoint(
        'GET /api/v1/a',
        300,
        load({ requestsPerSecond: 20_000 }),
        load({ requestsPerSecond: 15_000, p50Ms: 0.61, p99Ms: 1.234 }),
      ),
      evaluateEndpoint(
        'GET /api/v1/bb',
        6689,
        load({ requestsPerSecond: 20_000 }),
        load({ requestsPerSecond: 5_000, p99Ms: 12 }),
      ),
    ]);
    expect(report).toMatchObject({ failed: false, missed: true });
    const text = formatReport(report);
    const lines = text.split('\n');
    expect(lines[1]).toBe(
      'machine: Test CPU, 2 cores, 8 GiB, linux x64, Node v20.0.0, load 0.1, 2026-01-01T00:00:00.000Z',
    );
    expect(lines.slice(3, 8)).toEqual([
      'endpoint        server         req/s  p50 ms  p99 ms  srv CPU  srv µs/req  gen CPU  ratio  ratio ≥ 0.60  p99 ≤ 10 ms',
      'GET /api/v1/a   bare Fastify  20,000    0.50    2.00     80 %          80     50 %',
      'GET /api/v1/a   Parley        15,000    0.61    1.23     80 %          80     50 %   0.75  met           met',
      'GET /api/v1/bb  bare Fastify  20,000    0.50    2.00     80 %          80     50 %',
      'GET /api/v1/bb  Parley         5,000    0.50   12.00     80 %          80     50 %   0.25  MISSED        MISSED',
    ]);
    expect(text).toContain(
      'MISSED 2 targets:\n  GET /api/v1/bb: ratio 0.25 < 0.60\n  GET /api/v1/bb: p99 12.00 ms > 10 ms',
    );
    expect(text).toContain('bodies: GET /api/v1/a 300 B, GET /api/v1/bb 6,689 B');
    expect(text).not.toContain('FAILED');
    expect(text).not.toContain('noisy');
    expect(text).not.toContain('generator used');
  });

  it('says FAILED when the run saw errors, and all targets met otherwise', () => {
    const failed = buildReport(machine, settings, [evaluateEndpoint('GET /a', 10, load(), load({ non2xx: 3 }))]);
    expect(failed.failed).toBe(true);
    expect(formatReport(failed)).toContain(
      'FAILED: the run saw errors, so its figures do not count:\n  GET /a: Parley: 3 non-2xx answers',
    );
    const clean = buildReport(machine, settings, [evaluateEndpoint('GET /a', 10, load(), load())]);
    expect(formatReport(clean)).toMatch(/all targets met$/);
  });

  it('warns when the load generator may have held a baseline back', () => {
    const report = buildReport(machine, settings, [
      evaluateEndpoint('GET /a', 10, load({ generatorCpu: 0.97 }), load()),
    ]);
    expect(formatReport(report)).toContain('note: the load generator used 97 % of its core on the GET /a baseline');
  });

  it('warns that figures are noisy when the machine was busy at the start', () => {
    const busy = buildReport({ ...machine, loadAverage1m: 1 }, settings, [
      evaluateEndpoint('GET /a', 10, load(), load()),
    ]);
    expect(formatReport(busy)).toContain(
      'note: load 1 on 2 cores when the run started: other work competed for the CPU, so these figures are noisy',
    );
  });
});
