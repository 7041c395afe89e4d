/** Where every suite leaves its report: bench/results/<date>-<name>.md (the "each run writes…"). */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeMachine, type MachineFacts } from './machine.ts';

export const RESULTS_DIR = fileURLToPath(new URL('../results', import.meta.url));

/** A suite's printed report as a Markdown page: title, machine, the command that made it, the report verbatim. */
export function reportPage(title: string, machine: MachineFacts, command: string, report: string): string {
  return [
    `# ${title} — ${machine.date.slice(0, 10)}`,
    '',
    `Machine: ${describeMachine(machine)}`,
    '',
    `Command: \`${command}\``,
    '',
    '```text',
    report,
    '```',
    '',
  ].join('\n');
}

/** Writes `<dir>/<date>-<name>.md` and answers its path. */
export async function writeResultsFile(
  name: string,
  machine: MachineFacts,
  markdown: string,
  dir = RESULTS_DIR,
): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, `${machine.date.slice(0, 10)}-${name}.md`);
  await writeFile(file, markdown);
  return file;
}
