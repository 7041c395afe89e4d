import { describe, expect, it } from 'vitest';
import type { MachineFacts } from '../machine.ts';
import { brokenInvariants, debitsPerSecond, formatReport } from './report.ts';
import { DEFAULT_WORKLOAD, type WalletRun } from './workload.ts';

const machine: MachineFacts = {
  cpuModel: 'Test CPU',
  cores: 2,
  node: 'v20.0.0',
  platform: 'linux x64',
  memoryGiB: 8,
  loadAverage1m: 0.1,
  date: '2026-01-01T00:00:00.000Z',
};

function run(overrides: Partial<WalletRun['checks']> = {}, elapsedMs = 800): WalletRun {
  return {
    database: 'postgres://db/test',
    workload: DEFAULT_WORKLOAD,
    elapsedMs,
    latency: Float64Array.from({ length: 2_000 }, (_, i) => i / 100),
    outcomes: { applied: 1_000, duplicate: 1_000, unknown_call: 0 },
    roundTripsPerSecond: 20_000,
    checks: {
      usageRecords: 1_000,
      debits: 1_000,
      paidRecords: 1_000,
      billedCalls: 1_000,
      wallets: 50,
      walletsOffJournal: 0,
      unbalancedTransactions: 0,
      moneyAccountedFor: true,
      ...overrides,
    },
  };
}

describe('wallet report', () => {
  it('counts debits per second of wall time and says whether the Postgres target was met', () => {
    expect(debitsPerSecond(run())).toBe(1_250);
    const text = formatReport(machine, [
      { name: 'Postgres', run: run() },
      { name: 'PGlite', run: run({}, 4_000) },
    ]);
    expect(text).toMatch(/^Postgres\s+1250\s+1000\s+0\.80\s+2000\s+10\.0\s+18\.0\s+19\.8\s+20\.0\s+1000\s+1000$/m);
    expect(text).toMatch(/^PGlite\s+250\s/m);
    expect(text).toContain('Target ≥ 1000 debits/s on the real Postgres: met (1250/s).');
    expect(text).toMatch(/Postgres \(postgres:\/\/db\/test\): .* — every invariant held/);
  });

  it('names every broken invariant', () => {
    const broken = brokenInvariants(run({ debits: 1_001, walletsOffJournal: 2, moneyAccountedFor: false }));
    expect(broken).toEqual([
      '1001 debits, not 1000',
      "2 wallets differ from their journal's replay",
      'opening balances − balances ≠ usage charged',
    ]);
    expect(formatReport(machine, [{ name: 'PGlite', run: run({ usageRecords: 999 }) }])).toMatch(
      /BROKEN: 999 usage records, not 1000[\s\S]*No DATABASE_URL: the real Postgres was not measured/,
    );
  });
});
