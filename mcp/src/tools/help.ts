/** service_help: the usage guide bundled with the server (help/guide.md), whole or one section. */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { errorResult, textResult } from './results.ts';
import { defineTool, type Tool } from './tool.ts';

const GUIDE = readFileSync(new URL('../help/guide.md', import.meta.url), 'utf8');

/** `## Heading` sections of the guide, by lower-case heading. */
const SECTIONS = new Map(
  GUIDE.split(/^(?=## )/m)
    .filter((part) => part.startsWith('## '))
    .map((part) => [part.slice(3, part.indexOf('\n')).trim().toLowerCase(), part.trim()]),
);

const serviceHelp = defineTool({
  name: 'service_help',
  title: 'Usage guide',
  description: `How to use this server: what each tool is for, the confirm gate, lists, organisations and errors. Topics: ${[...SECTIONS.keys()].join(', ')}.`,
  toolClass: 'read',
  scopes: [],
  input: { topic: z.string().min(1).max(64).optional().describe('One section of the guide; default the whole guide') },
  async run(args) {
    if (!args.topic) return textResult(GUIDE);
    const section = SECTIONS.get(args.topic.trim().toLowerCase());
    return section
      ? textResult(section)
      : errorResult(`No topic "${args.topic}". Topics: ${[...SECTIONS.keys()].join(', ')}.`);
  },
});

export const helpTools: readonly Tool[] = [serviceHelp];
