/**
 * What the mcp suite measures: the two MCP methods an AI host calls most — tools/list (every conversation starts
 * with it) and tools/call of a read tool doing real work (agents_list: a page of 20 agents through the REST API and
 * Postgres) — beside the REST route that tool calls, so the report separates MCP's own cost from the work behind it.
 */
export interface MeasuredRequest {
  /** How the report names it. */
  label: string;
  method: 'GET' | 'POST';
  /** Path on the real server. */
  path: string;
  /** Path of the baseline route answering the same body (two MCP requests share /mcp, so the baseline splits them). */
  baselinePath: string;
  /** JSON-RPC request body, for POSTs. */
  body?: string;
}

/** Agents the fixture creates: one full page of agents_list's default. */
export const FIXTURE_AGENTS = 20;

const jsonRpc = (id: number, method: string, params: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params });

export const REQUESTS: readonly MeasuredRequest[] = [
  {
    label: 'MCP tools/list',
    method: 'POST',
    path: '/mcp',
    baselinePath: '/mcp/tools-list',
    body: jsonRpc(1, 'tools/list', {}),
  },
  {
    label: 'MCP tools/call agents_list',
    method: 'POST',
    path: '/mcp',
    baselinePath: '/mcp/tools-call',
    body: jsonRpc(2, 'tools/call', { name: 'agents_list', arguments: { limit: FIXTURE_AGENTS } }),
  },
  {
    label: 'REST GET /voice/agents',
    method: 'GET',
    path: `/api/v1/voice/agents?limit=${FIXTURE_AGENTS}`,
    baselinePath: '/api/v1/voice/agents',
  },
];

/** The headers a Streamable HTTP client sends (spec document 2), plus the key. */
export function requestHeaders(request: MeasuredRequest, key: string): Record<string, string> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (request.method === 'POST') {
    headers['content-type'] = 'application/json';
    headers.accept = 'application/json, text/event-stream';
  }
  return headers;
}

/** Why an answer is not a success (HTTP status, JSON-RPC error, a tool error), or undefined when it is one. */
export function answerProblem(status: number, body: string): string | undefined {
  if (status !== 200) return `HTTP ${status}: ${body.slice(0, 300)}`;
  let parsed: { error?: { message?: string }; result?: { isError?: boolean; content?: Array<{ text?: string }> } };
  try {
    parsed = JSON.parse(body);
  } catch {
    return `not JSON: ${body.slice(0, 300)}`;
  }
  if (parsed.error) return `JSON-RPC error: ${parsed.error.message ?? 'unknown'}`;
  if (parsed.result?.isError) return `tool error: ${parsed.result.content?.[0]?.text ?? 'unknown'}`;
  return undefined;
}
