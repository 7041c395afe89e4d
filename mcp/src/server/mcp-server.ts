/**
 * One MCP protocol server for one HTTP request (stateless Streamable HTTP: nothing outlives the request). The
 * tool listings are built once in the registry, so a request costs the handler table and the transport, not schemas.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Prompt } from '../prompts/prompt.ts';
import type { ToolRegistry } from '../tools/registry.ts';
import type { ToolContext } from '../tools/tool-context.ts';

export const SERVER_NAME = 'parley';
export const SERVER_VERSION = '0.1.0';

const INSTRUCTIONS =
  'Parley runs AI voice agents that answer and place phone calls. Tools marked confirm-gated first return a dry run: ' +
  'show it to the user and call again with confirm: true only after they approve. service_help explains the tools.';

/**
 * The SDK builds an Ajv instance per Server unless given one (it validates elicitation answers, which Parley does not
 * ask for); one per request was a third of tools/list's CPU in the bench, so every request shares this one.
 */
const SHARED_VALIDATOR = new AjvJsonSchemaValidator();

export interface Catalogue {
  tools: ToolRegistry;
  prompts: readonly Prompt[];
}

export function createMcpServer(catalogue: Catalogue, context: ToolContext): Server {
  const server = new Server(
    { name: SERVER_NAME, title: 'Parley', version: SERVER_VERSION },
    {
      capabilities: { tools: { listChanged: false }, prompts: { listChanged: false } },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator: SHARED_VALIDATOR,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: catalogue.tools.listed }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    catalogue.tools.call(request.params.name, request.params.arguments, context),
  );
  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: catalogue.prompts.map((prompt) => prompt.listing),
  }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    const prompt = catalogue.prompts.find((candidate) => candidate.listing.name === request.params.name);
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt "${request.params.name}"`);
    return prompt.expand(request.params.arguments ?? {});
  });
  return server;
}
