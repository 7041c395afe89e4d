/**
 * The MCP endpoint (spec documents 2 and 3): POST /mcp in stateless Streamable HTTP with JSON responses, its health
 * route, and the protected-resource metadata a host reads after a 401. Every POST authenticates its bearer token
 * through the REST API, counts against the connection's limit, then runs one MCP server for that one request.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { RestClient } from '../rest/rest-client.ts';
import { createMcpServer, SERVER_NAME, SERVER_VERSION, type Catalogue } from '../server/mcp-server.ts';
import { ToolContext } from '../tools/tool-context.ts';
import { bearerToken, lookUpCaller } from './caller-lookup.ts';
import { ConnectionLimit } from './connection-limit.ts';
import { malformedToolCall } from './tool-call-params.ts';

export const MCP_PATH = '/mcp';
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

export interface McpRoutesOptions {
  catalogue: Catalogue;
  rest: RestClient;
  /** Where hosts reach this server (PARLEY_PUBLIC_URL): the resource URL and the metadata link are built from it. */
  publicUrl: string;
  /** Requests per minute one connection (one token) may make. */
  requestsPerMinute: number;
  /** The scopes a token for this resource may carry, for the metadata. */
  scopes: readonly string[];
  /** The issuer of the OAuth authorization server hosts sign in with (RFC 8414), named in the metadata. */
  authorizationServer?: string;
}

/** The body of every refusal of these routes: a JSON-RPC 2.0 error answering no request (id null). */
const JSON_RPC_ERROR = {
  type: 'object',
  required: ['jsonrpc', 'error', 'id'],
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'integer' }, message: { type: 'string' } },
    },
    id: { type: 'null' },
  },
} as const;
const refusal = (description: string) => ({ ...JSON_RPC_ERROR, description });
/** A JSON answer; every field the handler (or the MCP SDK, whose answer is already text) writes is kept. */
const answer = (description: string) => ({ type: 'object', additionalProperties: true, description });

interface Documentation {
  description?: string;
  response: Record<number, object>;
  /** Open to anyone: the document then says no key is needed. */
  open?: boolean;
}

/** OpenAPI words for a route (tags and summary come from @fastify/swagger, which the host registers). */
function documented(summary: string, { description, response, open }: Documentation): FastifySchema {
  return {
    tags: ['mcp'],
    summary,
    ...(description ? { description } : {}),
    ...(open ? { security: [] } : {}),
    response,
  } as FastifySchema;
}

/** A body that is not JSON: answered as JSON-RPC's parse error rather than the REST API's 400. */
const UNPARSEABLE = Symbol('unparseable');

function jsonRpcError(reply: FastifyReply, status: number, code: number, message: string) {
  return reply.code(status).type('application/json').send({ jsonrpc: '2.0', error: { code, message }, id: null });
}

export default async function mcpRoutes(app: FastifyInstance, options: McpRoutesOptions) {
  const publicUrl = options.publicUrl.replace(/\/+$/, '');
  const metadataUrl = publicUrl + RESOURCE_METADATA_PATH;
  const resource = publicUrl + MCP_PATH;
  const limit = new ConnectionLimit(options.requestsPerMinute);

  // This plugin is encapsulated: its JSON parser replaces the app's for these routes only.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(null, UNPARSEABLE);
    }
  });

  // Refusals the host's framework makes before the handler runs (no or another content type, a body over the limit,
  // text the host refuses) would be answered in the REST envelope, which these routes' documented refusals cannot
  // serialise (a 500): answer them as JSON-RPC errors too. Unexpected failures say nothing of the server's insides.
  app.setErrorHandler((error: Error & { statusCode?: unknown; status?: unknown }, request, reply) => {
    const status = Number(error.statusCode ?? error.status ?? 500);
    if (status >= 400 && status < 500) return jsonRpcError(reply, status, ErrorCode.InvalidRequest, error.message);
    request.log.error({ err: error }, 'MCP request failed');
    return jsonRpcError(reply, 500, ErrorCode.InternalError, 'Internal error');
  });

  const unauthorized = (reply: FastifyReply, message: string, invalidToken: boolean) => {
    const error = invalidToken ? `, error="invalid_token", error_description="${message.replace(/"/g, "'")}"` : '';
    void reply.header('www-authenticate', `Bearer resource_metadata="${metadataUrl}"${error}`);
    return jsonRpcError(reply, 401, -32001, `Unauthorized: ${message}`);
  };

  app.post(
    MCP_PATH,
    {
      schema: documented('MCP: JSON-RPC 2.0 requests (Streamable HTTP, stateless, JSON responses)', {
        description:
          'initialize, tools/list, tools/call, prompts/list, prompts/get. Headers: Authorization: Bearer <API key, or the token of MCP sign-in>, ' +
          'Content-Type: application/json, Accept: application/json, text/event-stream. 401 without a valid token (WWW-Authenticate ' +
          `names ${RESOURCE_METADATA_PATH}); 429 past the per-connection limit (PARLEY_RATE_LIMITS mcp=…). REST errors come back as tool results.`,
        response: {
          200: answer('The JSON-RPC response'),
          202: { type: 'null', description: 'A notification was accepted (no body)' },
          400: refusal('The body is not JSON (parse error)'),
          401: refusal('No valid token; WWW-Authenticate names the resource metadata'),
          403: refusal('The key may not use the MCP server'),
          429: refusal('Past the per-connection rate limit; Retry-After says when to try again'),
          502: refusal('The key could not be checked'),
        },
      }),
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const token = bearerToken(request.headers.authorization);
      if (!token)
        return unauthorized(
          reply,
          'send Authorization: Bearer <token> (an API key, or the token of an MCP login)',
          false,
        );
      const verdict = limit.take(token);
      if (!verdict.allowed) {
        void reply.header('retry-after', String(verdict.retryAfterSeconds));
        return jsonRpcError(
          reply,
          429,
          -32002,
          `Rate limit exceeded: at most ${options.requestsPerMinute} requests per minute per connection; retry in ${verdict.retryAfterSeconds} s`,
        );
      }
      const found = await lookUpCaller(options.rest, token, request.ip);
      if (found.kind === 'refused') {
        if (found.status === 401) return unauthorized(reply, found.message, true);
        return jsonRpcError(reply, found.status === 403 ? 403 : 502, -32001, found.message);
      }
      // RFC 8707 / the MCP authorization spec: a token issued for another resource is not accepted here.
      if (found.audience !== null && found.audience !== resource) {
        return unauthorized(reply, `this token was issued for another resource (${found.audience})`, true);
      }
      if (request.body === UNPARSEABLE)
        return jsonRpcError(reply, 400, ErrorCode.ParseError, 'Parse error: the body is not JSON');
      const malformed = malformedToolCall(request.body);
      if (malformed) return reply.code(200).type('application/json').send(malformed);

      const context = new ToolContext(found.caller, options.rest, request.ip);
      const server = createMcpServer(options.catalogue, context);
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      try {
        await server.connect(transport);
        const response = await transport.handleRequest(toWebRequest(request, publicUrl), {
          parsedBody: request.body,
          authInfo: { token, clientId: found.caller.keyId, scopes: [...found.caller.scopes] },
        });
        void reply.code(response.status);
        response.headers.forEach((value, name) => void reply.header(name, value));
        return reply.send(response.body ? await response.text() : undefined);
      } finally {
        await server.close();
      }
    },
  );

  // Stateless and JSON-only: there is no server-to-client stream to open (GET) and no session to end (DELETE).
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: MCP_PATH,
      schema: documented(`MCP: ${method} is not used (405; the server is stateless)`, {
        response: { 405: refusal('Always: send JSON-RPC with POST') },
      }),
      handler: (_request, reply) => {
        void reply.header('allow', 'POST');
        return jsonRpcError(
          reply,
          405,
          -32000,
          `Method not allowed: this MCP server is stateless; send JSON-RPC with POST ${MCP_PATH}`,
        );
      },
    });
  }

  app.get(
    `${MCP_PATH}/health`,
    {
      schema: documented('MCP: health and the number of tools and prompts (no authentication)', {
        open: true,
        response: { 200: answer('Server name, version, and the number of tools and prompts') },
      }),
    },
    async () => ({
      status: 'ok',
      name: SERVER_NAME,
      version: SERVER_VERSION,
      tools: options.catalogue.tools.size,
      prompts: options.catalogue.prompts.length,
    }),
  );

  // RFC 9728: the resource, and the authorization server that issues tokens for it (MCP sign-in).
  app.get(
    RESOURCE_METADATA_PATH,
    {
      schema: documented('MCP: OAuth protected resource metadata (RFC 9728)', {
        open: true,
        response: { 200: answer('The protected resource metadata') },
      }),
    },
    async () => ({
      resource,
      ...(options.authorizationServer ? { authorization_servers: [options.authorizationServer] } : {}),
      resource_name: 'Parley MCP server',
      bearer_methods_supported: ['header'],
      scopes_supported: options.scopes,
      resource_documentation: `${publicUrl}/docs`,
    }),
  );
}

/** The Fastify request as the SDK's web-standard transport reads it (headers only: the body is passed parsed). */
function toWebRequest(request: FastifyRequest, publicUrl: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || name === 'content-length') continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(publicUrl + request.url, { method: request.method, headers });
}
