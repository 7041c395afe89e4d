import { describe, expect, it } from 'vitest';
import { areaOf, summariseProfile, type CpuProfile } from './cpu-profile.ts';

const frame = (functionName: string, url = '') => ({ functionName, url });

/** Samples 1 ms apart from t = 1 000 µs: idle, resample ×2, idle, write, resample, (gc). */
const PROFILE: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(idle)') },
    { id: 2, callFrame: frame('#produce', 'file:///work/main/engine/src/audio/resampler.ts') },
    { id: 3, callFrame: frame('writeBuffer') },
    { id: 4, callFrame: frame('(garbage collector)') },
  ],
  startTime: 0,
  endTime: 8_000,
  samples: [1, 2, 2, 1, 3, 2, 4, 1],
  timeDeltas: [1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000],
};

describe('summariseProfile', () => {
  it('gives self time per function and per area, idle left out', () => {
    const summary = summariseProfile(PROFILE);
    expect(summary.busyMs).toBe(5);
    expect(summary.functions[0]).toEqual({
      name: '#produce',
      where: 'engine/src/audio/resampler.ts',
      selfMs: 3,
      share: 0.6,
    });
    expect(summary.functions.map((f) => f.name)).toEqual(['#produce', 'writeBuffer', '(garbage collector)']);
    expect(summary.areas.map((a) => [a.name, a.selfMs])).toEqual([
      ['engine/src/audio', 3],
      ['native code (V8 builtins, libuv, system calls)', 1],
      ['(garbage collector)', 1],
    ]);
  });

  it('keeps only the samples inside the range', () => {
    const summary = summariseProfile(PROFILE, 10, [3_500, 6_500]);
    expect(summary.wallMs).toBe(3);
    expect(summary.functions.map((f) => [f.name, f.selfMs])).toEqual([
      ['writeBuffer', 1],
      ['#produce', 1],
    ]);
  });
});

describe('areaOf', () => {
  it('names a workspace folder, a package or Node', () => {
    expect(areaOf('file:///work/main/engine/src/transports/carrier-ws/carrier-json.ts')).toBe('engine/src/transports');
    expect(areaOf('file:///work/main/node_modules/@nats-io/nats-core/lib/core.js')).toBe('@nats-io/nats-core');
    expect(areaOf('file:///work/main/node_modules/ws/lib/sender.js')).toBe('ws');
    expect(areaOf('node:internal/net')).toBe('node internals');
  });
});
