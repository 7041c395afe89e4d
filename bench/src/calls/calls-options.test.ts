import { describe, expect, it } from 'vitest';
import { DEFAULT_LEVELS, parseCallsOptions } from './calls-options.ts';

describe('parseCallsOptions', () => {
  it("defaults to the issue's methodology", () => {
    expect(parseCallsOptions({}, 'bench/results')).toEqual({
      levels: DEFAULT_LEVELS,
      runs: 5,
      warmupSeconds: 10,
      windowSeconds: 60,
      carriers: ['carrier-a', 'carrier-b'],
      cpuProfDir: undefined,
      outDir: 'bench/results',
      name: 'calls',
      quick: false,
    });
  });

  it('makes --quick short, and lets options given beside it win', () => {
    expect(parseCallsOptions({ quick: true }, 'out')).toMatchObject({
      levels: [10, 20],
      runs: 1,
      warmupSeconds: 5,
      windowSeconds: 10,
      quick: true,
    });
    expect(parseCallsOptions({ quick: true, levels: '40', window: '20' }, 'out')).toMatchObject({
      levels: [40],
      runs: 1,
      windowSeconds: 20,
    });
  });

  it('sorts the levels and drops repeats', () => {
    expect(parseCallsOptions({ levels: '300, 100,200,100' }, 'out')).toMatchObject({ levels: [100, 200, 300] });
  });

  it('takes a carrier, the profile directory, the output directory and the name', () => {
    expect(
      parseCallsOptions({ carriers: 'carrier-b', 'cpu-prof': '/tmp/p', out: '/tmp/o', name: 'calls-short' }, 'out'),
    ).toMatchObject({ carriers: ['carrier-b'], cpuProfDir: '/tmp/p', outDir: '/tmp/o', name: 'calls-short' });
  });

  it('refuses bad values, naming the option', () => {
    expect(parseCallsOptions({ levels: '10,x' }, 'out')).toMatch(/^--levels/);
    expect(parseCallsOptions({ levels: '0' }, 'out')).toMatch(/^--levels/);
    expect(parseCallsOptions({ runs: '0' }, 'out')).toMatch(/^--runs/);
    expect(parseCallsOptions({ window: '0' }, 'out')).toMatch(/^--window/);
    expect(parseCallsOptions({ warmup: '-1' }, 'out')).toMatch(/^--warmup/);
    expect(parseCallsOptions({ carriers: 'carrier-c' }, 'out')).toMatch(/^--carriers/);
    expect(parseCallsOptions({ name: '../x' }, 'out')).toMatch(/^--name/);
  });
});
