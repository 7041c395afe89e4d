import { describe, expect, it } from 'vitest';
import { runFigures } from './call-metrics.ts';
import { ceilingOf, evaluateGates, passed } from './gates.ts';
import { callWindow, level, PROVIDER_MS, rawRun } from './test-runs.ts';

const gate = (raw: ReturnType<typeof rawRun>, name: string) =>
  evaluateGates(runFigures(raw, PROVIDER_MS)).find((g) => g.gate === name)!;

describe('evaluateGates', () => {
  it('passes a healthy run on every gate, saying each figure', () => {
    const gates = evaluateGates(runFigures(rawRun(100, { engineCpuMs: 30_000 }), PROVIDER_MS));
    expect(passed(gates)).toBe(true);
    expect(gates.map((g) => [g.gate, g.value])).toEqual([
      ['calls up', '100/100'],
      ['audible-gap p90', '1.00 ms'],
      ['frames delivered', 'agent 100.0 %, caller 100.0 %'],
      ['output per call', 'worst call answered 100.0 %'],
      ['engine CPU', '50.0 % of a core'],
    ]);
  });

  it('fails an audible-gap p90 of 5 ms or more', () => {
    const g = gate(rawRun(10, { window: { gapsMs: [0, 0, 0, 0, 0, 0, 0, 0, 5, 6] } }), 'audible-gap p90');
    expect(g).toMatchObject({ value: '5.00 ms', pass: false });
  });

  it('fails a run with no agent audio at all: a dead server has no gaps, and must not pass', () => {
    const raw = rawRun(10, { window: { gapsMs: [], turnMs: [], answered: 0 } });
    expect(gate(raw, 'audible-gap p90')).toMatchObject({ value: 'no agent audio', pass: false });
    expect(gate(raw, 'output per call')).toMatchObject({ value: 'worst call answered 0.0 %, 10 below', pass: false });
  });

  it('fails delivery when one frame went missing', () => {
    const raw = rawRun(10);
    raw.callerEnds[3]!.receivedMessages -= 1;
    expect(gate(raw, 'frames delivered')).toMatchObject({
      value: 'agent 100.0 %, caller 100.0 %, 1 call(s) short',
      pass: false,
    });
  });

  it('fails an engine at 80 % of a core or more, and a run whose calls did not all come up', () => {
    expect(gate(rawRun(10, { engineCpuMs: 48_000 }), 'engine CPU')).toMatchObject({
      value: '80.0 % of a core',
      pass: false,
    });
    const raw = rawRun(10);
    raw.calls = 11;
    expect(gate(raw, 'calls up')).toMatchObject({ value: '10/11', pass: false });
  });

  it('passes a call answering 90 % of its utterances and fails one answering less', () => {
    const ok = rawRun(2);
    ok.windows[0]!.window = callWindow({ utterances: 10, answered: 9 });
    expect(gate(ok, 'output per call').pass).toBe(true);
    ok.windows[0]!.window = callWindow({ utterances: 10, answered: 8 });
    expect(gate(ok, 'output per call').pass).toBe(false);
  });
});

describe('ceilingOf', () => {
  it('is the highest level reached with every level below it passing', () => {
    expect(ceilingOf([level(100, 2), level(50, 2), level(150, 1, { engineCpuMs: 50_000 })])).toBe(100);
    expect(ceilingOf([level(50, 1, { engineCpuMs: 50_000 }), level(100, 1)])).toBe(0);
    expect(ceilingOf([])).toBe(0);
  });
});
