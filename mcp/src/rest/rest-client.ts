/**
 * The MCP server's only way into Parley: the REST API (docs/architecture.md §1). Whatever REST refuses, a tool refuses the same
 * way, because every tool call is a REST request made with the caller's own bearer token.
 *
 * Embedded in the control plane's HTTP server the requests go through Fastify's `inject` (no socket, same process);
 * a stand-alone MCP server would use `fetchRestClient` against the control plane's public URL.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

export type RestMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface RestRequest {
  method: RestMethod;
  /** Path under the REST root, starting with `/` (e.g. `/voice/agents`); query values are encoded here. */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** A JSON body. */
  body?: unknown;
  /** A multipart/form-data body instead (an upload route): its text fields and files. */
  form?: RestForm;
  /** The caller's bearer token, sent on as it came. */
  token: string;
  /**
   * The MCP client's address: REST limits counted per calling host (call placement) must count the host behind the
   * MCP connection, not the MCP server itself.
   */
  clientAddress?: string;
}

export interface RestForm {
  fields: Record<string, string>;
  files: { field: string; filename: string; contentType: string; data: Uint8Array }[];
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

/** The request's body as sent, with its content type: JSON, a multipart form, or none. */
function encodedBody(request: RestRequest): { contentType?: string; payload?: string | Buffer } {
  if (request.form) return multipart(request.form);
  if (request.body !== undefined) return { contentType: 'application/json', payload: JSON.stringify(request.body) };
  return {};
}

/** RFC 7578 multipart/form-data, written out: a boundary no part contains, each field and file a part. */
function multipart(form: RestForm): { contentType: string; payload: Buffer } {
  const boundary = `parley-mcp-${randomUUID()}`;
  const quoted = (value: string) => value.replace(/["\r\n]/g, '_');
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(form.fields)) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`),
    );
  }
  for (const file of form.files) {
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(file.field)}"; filename="${quoted(file.filename)}"\r\n` +
          `Content-Type: ${file.contentType}\r\n\r\n`,
      ),
      Buffer.from(file.data),
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { contentType: `multipart/form-data; boundary=${boundary}`, payload: Buffer.concat(parts) };
}

function headersOf(request: RestRequest, contentType: string | undefined): Record<string, string> {
  const headers: Record<string, string> = { authorization: `Bearer ${request.token}` };
  if (contentType) headers['content-type'] = contentType;
  return headers;
}

/** In-process: the control plane's own routes, reached without a socket. */
export function injectRestClient(app: FastifyInstance, prefix: string): RestClient {
  return async (request) => {
    const { contentType, payload } = encodedBody(request);
    const response = await app.inject({
      method: request.method,
      url: prefix + pathWithQuery(request.path, request.query),
      headers: headersOf(request, contentType),
      payload,
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
    const { contentType, payload } = encodedBody(request);
    const headers = headersOf(request, contentType);
    // Counted as the client's host only when the control plane trusts this proxy hop (Fastify's trustProxy).
    if (request.clientAddress) headers['x-forwarded-for'] = request.clientAddress;
    const response = await fetch(root + pathWithQuery(request.path, request.query), {
      method: request.method,
      headers,
      body: payload,
    });
    return {
      status: response.status,
      body: parseBody(await response.text(), response.headers.get('content-type') ?? undefined),
    };
  };
}
