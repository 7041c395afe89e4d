/**
 * The MCP server's only way into Parley: the REST API (docs/architecture.md §1). Whatever REST refuses, a tool refuses the same
 * way, because every tool call is a REST request made with the caller's own bearer token.
 *
 * Embedded in the control plane's HTTP server the requests go through Fastify's `inject` (no socket, same process);
 * a stand-alone MCP server would use `fetchRestClient` against the control plane's public URL.
 */
import type { FastifyInstance } from 'fastify';

export type RestMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RestRequest {
  method: RestMethod;
  /** Path under the REST root, starting with `/` (e.g. `/voice/agents`); query values are encoded here. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** The caller's bearer token, sent on as it came. */
  token: string;
  /**
   * The MCP client's address: REST limits counted per calling host (call placement) must count the host behind the
   * MCP connection, not the MCP server itself.
   */
  clientAddress?: string;
}

export interface RestResponse {
  status: number;
  /** The parsed JSON body, or the text when the answer is not JSON. */
  body: unknown;
}

export type RestClient = (request: RestRequest) => Promise<RestResponse>;

/** `/voice/agents` + `{ page: 2 }` → `/voice/agents?page=2`, leaving out what is undefined. */
export function pathWithQuery(path: string, query: RestRequest['query']): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined) params.set(name, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

function parseBody(text: string, contentType: string | undefined): unknown {
  if (!contentType?.includes('json') || text === '') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function headersOf(request: RestRequest): Record<string, string> {
  const headers: Record<string, string> = { authorization: `Bearer ${request.token}` };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  return headers;
}

/** In-process: the control plane's own routes, reached without a socket. */
export function injectRestClient(app: FastifyInstance, prefix: string): RestClient {
  return async (request) => {
    const response = await app.inject({
      method: request.method,
      url: prefix + pathWithQuery(request.path, request.query),
      headers: headersOf(request),
      payload: request.body === undefined ? undefined : JSON.stringify(request.body),
      ...(request.clientAddress ? { remoteAddress: request.clientAddress } : {}),
    });
    return {
      status: response.statusCode,
      body: parseBody(response.body, response.headers['content-type'] as string | undefined),
    };
  };
}

/** Over HTTP, for an MCP server running apart from the control plane (`restRoot` like `http://cp:3000/api/v1`). */
export function fetchRestClient(restRoot: string): RestClient {
  const root = restRoot.replace(/\/+$/, '');
  return async (request) => {
    const headers = headersOf(request);
    // Counted as the client's host only when the control plane trusts this proxy hop (Fastify's trustProxy).
    if (request.clientAddress) headers['x-forwarded-for'] = request.clientAddress;
    const response = await fetch(root + pathWithQuery(request.path, request.query), {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
    });
    return {
      status: response.status,
      body: parseBody(await response.text(), response.headers.get('content-type') ?? undefined),
    };
  };
}
