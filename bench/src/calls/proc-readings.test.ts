import { describe, expect, it } from 'vitest';
import { cpuMsOfStat, machineCpuOfStat } from './proc-readings.ts';

describe('cpuMsOfStat', () => {
  it('adds utime and stime, counting fields after the name (which may hold spaces and parentheses)', () => {
    const stat = '2941 (nats (x) server) S 1 2939 2939 0 -1 4194304 3427 0 1 0 128 117 0 0 20 0 13 0 1234 0 0';
    expect(cpuMsOfStat(stat)).toBe(2_450);
  });
});

describe('machineCpuOfStat', () => {
  it('counts idle and iowait as idle and the rest as busy', () => {
    expect(machineCpuOfStat('cpu  100 5 20 800 10 0 3 2 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\n')).toEqual({
      busy: 130,
      total: 940,
    });
  });
});
