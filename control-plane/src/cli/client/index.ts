/**
 * The `parley` command-line client of the REST API (docs/architecture.md §20): `parley <resource> <verb>` for
 * agents, calls, campaigns, knowledge and results, and `parley login|logout|whoami` for where it connects.
 * Unlike the admin commands beside it, it needs no database: only a URL and an API key.
 */
import { resourceUsage, runVerb, SHARED_USAGE, type Resource } from './client-command.ts';
import { agents } from './commands/agents.ts';
import { calls } from './commands/calls.ts';
import { campaigns } from './commands/campaigns.ts';
import { knowledge } from './commands/knowledge.ts';
import { session } from './commands/login.ts';
import { results } from './commands/results.ts';

const RESOURCES: Record<string, Resource> = { agents, calls, campaigns, knowledge, results };

export function isClientCommand(command: string | undefined): boolean {
  return command !== undefined && (command in RESOURCES || command in session.verbs);
}

export function runClient(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command! in session.verbs) return runVerb(session, argv);
  return runVerb(RESOURCES[command!]!, rest);
}

/** The client's lines of `parley --help`. */
export function clientUsage(): string {
  const lines = [
    '  login --url URL --key KEY [--profile NAME]',
    '                                        save where Parley runs and your API key (checked first)',
    '  logout [--profile NAME] | whoami     forget a profile | show the key in use',
    ...Object.values(RESOURCES).map((r) => `  ${r.name.padEnd(38)}${r.summary}`),
  ];
  return `${lines.join('\n')}\n\n  parley <resource> --help lists its commands. ${SHARED_USAGE}`;
}

export { resourceUsage };
