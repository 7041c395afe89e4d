/** The bench command line: `<suite> [--duration <s>] [--connections <n>] [--json] [suite options]`. */
import { parseArgs } from 'node:util';
import type { CommonOptions, Suite } from './suite.ts';

export const DEFAULT_DURATION_SECONDS = 10;
export const DEFAULT_CONNECTIONS = 10;

export type ParsedCommand =
  | { kind: 'run'; suite: Suite; options: CommonOptions; extra: Record<string, string | boolean | undefined> }
  | { kind: 'help' }
  | { kind: 'usage-error'; message: string };

export function parseCommand(argv: readonly string[], suites: readonly Suite[]): ParsedCommand {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h') return { kind: 'help' };
  if (name === undefined || name.startsWith('-')) return { kind: 'usage-error', message: 'Name a suite.' };
  const suite = suites.find((s) => s.name === name);
  if (!suite) return { kind: 'usage-error', message: `Unknown suite "${name}".` };

  const suiteOptions = Object.fromEntries(
    Object.entries(suite.options ?? {}).map(([key, o]) => [key, { type: o.type }]),
  );
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...rest],
      strict: true,
      allowPositionals: false,
      options: {
        ...suiteOptions,
        duration: { type: 'string' },
        connections: { type: 'string' },
        json: { type: 'boolean' },
      },
    }));
  } catch (error) {
    return { kind: 'usage-error', message: error instanceof Error ? error.message : String(error) };
  }
  const { duration, connections, json, ...extra } = values;
  const durationSeconds = positiveInteger(duration, DEFAULT_DURATION_SECONDS);
  if (durationSeconds === undefined)
    return {
      kind: 'usage-error',
      message: `--duration must be a whole number of seconds ≥ 1, got "${String(duration)}".`,
    };
  const connectionCount = positiveInteger(connections, DEFAULT_CONNECTIONS);
  if (connectionCount === undefined)
    return { kind: 'usage-error', message: `--connections must be a whole number ≥ 1, got "${String(connections)}".` };
  return { kind: 'run', suite, options: { durationSeconds, connections: connectionCount, json: json === true }, extra };
}

function positiveInteger(value: string | boolean | undefined, fallback: number): number | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !/^\d+$/.test(value)) return undefined;
  const n = Number(value);
  return n >= 1 && Number.isSafeInteger(n) ? n : undefined;
}

export function usage(suites: readonly Suite[]): string {
  const width = Math.max(...suites.map((s) => s.name.length));
  const lines = [
    'usage: npm run bench -- <suite> [--duration <s>] [--connections <n>] [--json] [suite options]',
    '',
    'suites:',
    ...suites.map((s) => `  ${s.name.padEnd(width)}  ${s.summary}`),
    '',
    'options:',
    `  --duration <s>      measured seconds per target (default ${DEFAULT_DURATION_SECONDS}; a short warm-up comes first)`,
    `  --connections <n>   concurrent connections (default ${DEFAULT_CONNECTIONS})`,
    '  --json              also print the result as one JSON object',
  ];
  for (const suite of suites) {
    const own = Object.entries(suite.options ?? {});
    if (!own.length) continue;
    lines.push('', `${suite.name} options:`);
    for (const [key, o] of own)
      lines.push(`  --${key}${o.valueName ? ` ${o.valueName}` : ''}`.padEnd(22) + o.description);
  }
  return lines.join('\n');
}
