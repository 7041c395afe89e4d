/**
 * The built-in search tools of an agent whose variables list knowledge bases or catalogues (spec document 1,
 * customVariables; docs/architecture.md §14): `knowledge_search` and `product_search`. Each asks the control plane
 * over `v1.kb.search` with the call's organisation and the listed ids, and hands the model (or a FLOW knowledge
 * step) the results as JSON it can quote: passages with their source, or products with price and stock. A failure
 * — no control plane answering in time, a refused search — is a short text the model can put into words.
 */
import type { Bus } from '../bus/index.ts';
import {
  CATALOGUE_VARIABLES,
  KB_SEARCH_MAX_IDS,
  KB_SEARCH_MAX_QUERY_CHARS,
  KB_SEARCH_TIMEOUT_MS,
  KNOWLEDGE_BASE_VARIABLES,
  SEARCH_TOOLS,
  kbSearchCodecs,
  subjects,
  type CallSpec,
  type KbSearchRequest,
} from '../protocol/index.ts';
import type { ToolDefinition } from '../providers/llm-provider.ts';
import type { ToolOutcome } from './webhook-tool.ts';

/** A tool the engine runs itself (no webhook): its definition for the model, and how to run it. */
export interface CallTool {
  definition: ToolDefinition;
  run(argumentsJson: string, signal: AbortSignal): Promise<ToolOutcome>;
}

/** Passages or products given to the model per search: enough to answer from, few enough to keep the reply fast. */
export const SEARCH_TOOL_RESULTS = 3;

const QUERY_PARAMETERS = {
  type: 'object',
  properties: { query: { type: 'string', description: "The caller's question, or the words to look for" } },
  required: ['query'],
};

/** The ids a variable holds: one id, a list of ids, or a comma-separated list. */
export function listedIds(variables: Record<string, unknown>, keys: readonly string[]): string[] {
  const ids = new Set<string>();
  for (const key of keys) {
    const value = variables[key];
    const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
    for (const item of items) if (typeof item === 'string' && item.trim()) ids.add(item.trim());
  }
  return [...ids];
}

/** The search tools this call's agent has: none unless its variables list something to search. */
export function searchTools(spec: CallSpec, bus: Bus): CallTool[] {
  const variables = { ...spec.agent.customVariables, ...spec.variables };
  const tools: CallTool[] = [];
  const knowledgeIds = listedIds(variables, KNOWLEDGE_BASE_VARIABLES);
  if (knowledgeIds.length) {
    tools.push(
      searchTool(bus, spec, 'knowledge', knowledgeIds, {
        name: SEARCH_TOOLS.knowledge,
        description:
          "Search the knowledge base for facts to answer the caller (opening hours, prices, policies, how-tos). Answer only from what it returns; if it finds nothing, say you don't know.",
        parameters: QUERY_PARAMETERS,
      }),
    );
  }
  const catalogueIds = listedIds(variables, CATALOGUE_VARIABLES);
  if (catalogueIds.length) {
    tools.push(
      searchTool(bus, spec, 'catalogue', catalogueIds, {
        name: SEARCH_TOOLS.catalogue,
        description:
          'Search the product catalogue by name, kind or attribute; "in stock" and price limits such as "under 20" are understood. Gives name, price, currency, stock and a short description.',
        parameters: QUERY_PARAMETERS,
      }),
    );
  }
  return tools;
}

function searchTool(
  bus: Bus,
  spec: CallSpec,
  kind: KbSearchRequest['kind'],
  ids: string[],
  definition: ToolDefinition,
): CallTool {
  return {
    definition,
    async run(argumentsJson, signal) {
      const started = performance.now();
      const outcome = (ok: boolean, content: string): ToolOutcome => ({
        ok,
        content,
        durationMs: Math.round(performance.now() - started),
      });
      let query: unknown;
      try {
        query = (JSON.parse(argumentsJson || '{}') as { query?: unknown }).query;
      } catch {
        return outcome(false, 'The search was called with arguments that are not valid JSON; nothing was searched.');
      }
      if (typeof query !== 'string' || !query.trim()) return outcome(false, 'The search needs a query.');
      try {
        const reply = await bus.request(
          subjects.kbSearch(),
          kbSearchCodecs.request.encode({
            organisationId: spec.organisationId,
            callId: spec.callId,
            kind,
            ids: ids.slice(0, KB_SEARCH_MAX_IDS),
            query: query.trim().slice(0, KB_SEARCH_MAX_QUERY_CHARS),
            limit: SEARCH_TOOL_RESULTS,
          }),
          { timeoutMs: KB_SEARCH_TIMEOUT_MS },
        );
        if (signal.aborted) return outcome(false, 'The search was cancelled.');
        const answer = kbSearchCodecs.reply.decode(reply.data);
        if (!answer.ok) return outcome(false, `The search failed: ${answer.message}`);
        const results =
          kind === 'knowledge'
            ? answer.passages.map((p) => ({
                source: p.heading ? `${p.document_name} › ${p.heading}` : p.document_name,
                text: p.text,
              }))
            : answer.products;
        return outcome(
          true,
          JSON.stringify(
            results.length ? { results } : { results, note: 'Nothing matches; tell the caller you could not find it.' },
          ),
        );
      } catch {
        return outcome(false, 'The search is not available right now; nothing was found.');
      }
    },
  };
}
