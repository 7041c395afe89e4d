/** `parley agents …`: the organisation's agents over /voice/agents. */
import { positional, numberFlag, requiredFlag, type Resource } from '../client-command.ts';
import { readJsonFile } from '../json-file.ts';
import { notice, printFields, printJson, printTable } from '../output.ts';

interface Agent {
  id: string;
  name: string;
  agentType: string;
  builderMode: string;
  isActive: boolean;
  callingNumber: string | null;
  totalCalls: number;
  updatedAt: string;
  greetingMessage: string | null;
  language: string;
  voiceId: string | null;
}

interface AgentPage {
  items: Agent[];
  total: number;
  page: number;
  totalPages: number;
}

export const agents: Resource = {
  name: 'agents',
  summary: 'list, read, create, change and delete agents',
  verbs: {
    list: {
      usage: '[--search TEXT] [--type VOICE|CHAT] [--page N] [--limit N]',
      summary: 'the agents, newest first',
      options: {
        search: { type: 'string' },
        type: { type: 'string' },
        page: { type: 'string' },
        limit: { type: 'string' },
      },
      async run(context, _positionals, flags) {
        const page = await (await context.api()).request<AgentPage>('GET', '/voice/agents', {
          query: {
            search: flags.search as string | undefined,
            agentType: flags.type as string | undefined,
            page: numberFlag(flags, 'page', 1, 1_000_000),
            limit: numberFlag(flags, 'limit', 1, 100),
          },
        });
        if (context.json) {
          printJson(page);
          return 0;
        }
        printTable(page.items, [
          { header: 'ID', value: (a) => a.id },
          { header: 'NAME', value: (a) => a.name },
          { header: 'TYPE', value: (a) => a.agentType },
          { header: 'MODE', value: (a) => a.builderMode },
          { header: 'ACTIVE', value: (a) => (a.isActive ? 'yes' : 'no') },
          { header: 'NUMBER', value: (a) => a.callingNumber },
          { header: 'CALLS', value: (a) => a.totalCalls },
        ]);
        if (page.totalPages > 1) notice(`page ${page.page} of ${page.totalPages} (${page.total} agents): --page N`);
        return 0;
      },
    },
    get: {
      usage: 'ID',
      summary: "one agent's settings",
      async run(context, positionals) {
        const agent = await (await context.api()).request<Agent>(
          'GET',
          `/voice/agents/${positional(positionals, 0, 'agent ID')}`,
        );
        if (context.json) {
          printJson(agent);
          return 0;
        }
        printFields([
          ['id', agent.id],
          ['name', agent.name],
          ['type', `${agent.agentType} (${agent.builderMode})`],
          ['active', agent.isActive],
          ['language', agent.language],
          ['voice', agent.voiceId],
          ['number', agent.callingNumber],
          ['greeting', agent.greetingMessage],
          ['calls', agent.totalCalls],
          ['updated', agent.updatedAt],
        ]);
        return 0;
      },
    },
    create: {
      usage: '--file AGENT.json',
      summary: 'create an agent from a JSON file of its fields (- reads standard input)',
      options: { file: { type: 'string' } },
      async run(context, _positionals, flags) {
        const body = await readJsonFile(requiredFlag(flags, 'file'));
        const agent = await (await context.api()).request<Agent>('POST', '/voice/agents', { json: body });
        if (context.json) {
          printJson(agent);
          return 0;
        }
        process.stdout.write(`${agent.id}\n`);
        notice(`created agent "${agent.name}"`);
        return 0;
      },
    },
    update: {
      usage: 'ID --file CHANGES.json',
      summary: 'change the fields the file names, leaving the rest',
      options: { file: { type: 'string' } },
      async run(context, positionals, flags) {
        const id = positional(positionals, 0, 'agent ID');
        const body = await readJsonFile(requiredFlag(flags, 'file'));
        const agent = await (await context.api()).request<Agent>('PUT', `/voice/agents/${id}`, { json: body });
        if (context.json) {
          printJson(agent);
          return 0;
        }
        notice(`updated agent "${agent.name}"`);
        return 0;
      },
    },
    delete: {
      usage: 'ID',
      summary: 'delete an agent',
      async run(context, positionals) {
        const id = positional(positionals, 0, 'agent ID');
        const result = await (await context.api()).request<unknown>('DELETE', `/voice/agents/${id}`);
        if (context.json) {
          printJson(result);
          return 0;
        }
        notice(`deleted agent ${id}`);
        return 0;
      },
    },
  },
};
