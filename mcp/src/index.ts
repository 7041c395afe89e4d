/**
 * The MCP server (docs/architecture.md §1): a Fastify plugin the control plane mounts at /mcp, and a client of the REST API.
 * It imports nothing of the control plane; the host passes the REST client (in-process `inject`, or HTTP).
 */
import type { FastifyInstance } from 'fastify';
import mcpRoutes from './http/mcp-routes.ts';
import { PROMPTS } from './prompts/index.ts';
import type { RestClient } from './rest/rest-client.ts';
import { ToolRegistry } from './tools/registry.ts';
import { TOOLS } from './tools/index.ts';

export { injectRestClient, fetchRestClient, type RestClient } from './rest/rest-client.ts';
export { MCP_PATH, RESOURCE_METADATA_PATH } from './http/mcp-routes.ts';

export interface McpPluginOptions {
  rest: RestClient;
  publicUrl: string;
  requestsPerMinute: number;
  scopes: readonly string[];
  /** The issuer of the authorization server of MCP sign-in, named in the protected resource metadata. */
  authorizationServer?: string;
}

/** Registers /mcp, /mcp/health and the protected-resource metadata, in a context of their own (their own JSON parser). */
export async function mcpPlugin(app: FastifyInstance, options: McpPluginOptions): Promise<void> {
  const tools = new ToolRegistry(TOOLS, (tool, error) => app.log.error({ err: error, tool }, 'MCP tool failed'));
  await app.register(mcpRoutes, { ...options, catalogue: { tools, prompts: PROMPTS } });
}
