/**
 * The MCP SDK checks a request's params with its own schema and, when they do not fit, answers JSON-RPC's "internal
 * error" (-32603), which tells a host the server broke. A tools/call whose params are not `{ name, arguments? }`
 * with an object for arguments is the caller's mistake: it is answered here with "invalid params" (-32602) instead.
 */
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';

export interface JsonRpcErrorAnswer {
  jsonrpc: '2.0';
  id: string | number | null;
  error: { code: number; message: string };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The answer refusing a malformed tools/call, or undefined when the body is anything else or well-formed. */
export function malformedToolCall(body: unknown): JsonRpcErrorAnswer | undefined {
  if (!isObject(body) || body.method !== 'tools/call') return undefined;
  const id = typeof body.id === 'string' || typeof body.id === 'number' ? body.id : null;
  const refuse = (message: string): JsonRpcErrorAnswer => ({
    jsonrpc: '2.0',
    id,
    error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${message}` },
  });
  const params = body.params;
  if (!isObject(params)) return refuse('params must be an object');
  if (typeof params.name !== 'string') return refuse('params.name must be the name of a tool');
  if (params.arguments !== undefined && !isObject(params.arguments))
    return refuse('params.arguments must be an object');
  return undefined;
}
