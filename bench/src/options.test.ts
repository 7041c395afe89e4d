import { describe, expect, it } from 'vitest';
import { parseCommand } from './options.ts';
import { EXIT_OK, type Suite } from './suite.ts';

const suite: Suite = {
  name: 'rest',
  summary: 'test',
  options: { 'cpu-prof': { type: 'string', description: 'profiles' } },
  run: async () => EXIT_OK,
};

describe('parseCommand', () => {
  it('takes defaults, common options and the suite’s own options', () => {
    expect(parseCommand(['rest'], [suite])).toMatchObject({
      kind: 'run',
      options: { durationSeconds: 10, connections: 10, json: false },
    });
    expect(
      parseCommand(['rest', '--duration', '3', '--connections', '50', '--json', '--cpu-prof', '/tmp/p'], [suite]),
    ).toMatchObject({
      kind: 'run',
      options: { durationSeconds: 3, connections: 50, json: true },
      extra: { 'cpu-prof': '/tmp/p' },
    });
  });

  it('refuses a missing or unknown suite, unknown options and bad numbers', () => {
    expect(parseCommand([], [suite]).kind).toBe('usage-error');
    expect(parseCommand(['--duration', '3'], [suite]).kind).toBe('usage-error');
    expect(parseCommand(['engine'], [suite])).toEqual({ kind: 'usage-error', message: 'Unknown suite "engine".' });
    expect(parseCommand(['rest', '--nope'], [suite]).kind).toBe('usage-error');
    for (const bad of ['0', '-1', '1.5', 'ten'])
      expect(parseCommand(['rest', '--duration', bad], [suite]).kind).toBe('usage-error');
    expect(parseCommand(['rest', '--connections', '0'], [suite]).kind).toBe('usage-error');
  });
});
