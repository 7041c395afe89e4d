/** `parley results …`: an agent's structured results (outcomes and captured fields) over /voice/agents/{id}/results. */
import path from 'node:path';
import { positional, type Resource } from '../client-command.ts';
import { download } from '../download.ts';
import { notice, printJson, printTable } from '../output.ts';

interface ResultsSummary {
  calls: number;
  minutes: number;
  outcomes: { key: string; label: string; count: number }[];
}

export const results: Resource = {
  name: 'results',
  summary: "an agent's call results: outcome counts, and every result as CSV",
  verbs: {
    summary: {
      usage: 'AGENT_ID [--from DATE] [--to DATE]',
      summary: 'how many calls ended with each outcome',
      options: { from: { type: 'string' }, to: { type: 'string' } },
      async run(context, positionals, flags) {
        const agentId = positional(positionals, 0, 'agent ID');
        const summary = await (await context.api()).request<ResultsSummary>(
          'GET',
          `/voice/agents/${agentId}/results/summary`,
          { query: { from: flags.from as string | undefined, to: flags.to as string | undefined } },
        );
        if (context.json) {
          printJson(summary);
          return 0;
        }
        printTable(summary.outcomes, [
          { header: 'OUTCOME', value: (o) => o.key },
          { header: 'LABEL', value: (o) => o.label },
          { header: 'CALLS', value: (o) => o.count },
        ]);
        notice(`${summary.calls} calls, ${summary.minutes} minutes`);
        return 0;
      },
    },
    export: {
      usage: 'AGENT_ID [--out FILE] [--from DATE] [--to DATE] [--search TEXT]',
      summary: "every result of the agent's calls as CSV (default results-AGENT_ID.csv)",
      options: {
        out: { type: 'string' },
        from: { type: 'string' },
        to: { type: 'string' },
        search: { type: 'string' },
      },
      async run(context, positionals, flags) {
        const agentId = positional(positionals, 0, 'agent ID');
        const out = path.resolve((flags.out as string | undefined) ?? `results-${agentId}.csv`);
        return download(context, `/voice/agents/${agentId}/results/export`, out, {
          from: flags.from as string | undefined,
          to: flags.to as string | undefined,
          search: flags.search as string | undefined,
        });
      },
    },
  },
};
