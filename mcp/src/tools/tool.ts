/**
 * A tool of the MCP server: its name and words for the host, its input as a zod shape (checked before it runs, a
 * bad argument answered with the field's name), its class in spec document 2's table, and what it does.
 */
import { z } from 'zod';
import type { CallToolResult, Tool as ListedTool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolContext } from './tool-context.ts';

/** Spec document 2's classes: R read-only, W writes, D destructive (C, the confirm gate, is `confirm`). */
export type ToolClass = 'read' | 'write' | 'destructive';

export interface Tool<Shape extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  toolClass: ToolClass;
  /** Confirm-gated (MCP rule 1): without `confirm: true` the tool only previews. */
  confirm?: boolean;
  /** Scopes the REST routes behind it need, for the description (REST enforces them). */
  scopes: readonly string[];
  input: Shape;
  run(args: z.infer<z.ZodObject<Shape>>, context: ToolContext): Promise<CallToolResult>;
}

/** Keeps each tool's argument types tied to its own input shape. */
export function defineTool<Shape extends z.ZodRawShape>(tool: Tool<Shape>): Tool {
  return tool as unknown as Tool;
}

/** Arguments every confirm-gated tool takes. */
export const confirmArgument = {
  confirm: z
    .boolean()
    .optional()
    .describe('true carries the action out; without it the tool only shows what it would do (a dry run).'),
};

/** `org_id` of MCP rule 2. */
export const orgArgument = {
  org_id: z.string().min(1).max(64).optional().describe("The organisation; default the connection's own."),
};

/** The most records a list tool returns (MCP rule 3): a larger `limit` is read as this, not refused. */
const LIST_LIMIT_CAP = 100;

/** Paging and trimming of list tools (MCP rule 3). */
export const listArguments = {
  limit: z
    .number()
    .int()
    .min(1)
    .transform((limit) => Math.min(limit, LIST_LIMIT_CAP))
    .optional()
    .describe(`Records to return, 20 by default; more than ${LIST_LIMIT_CAP} is read as ${LIST_LIMIT_CAP}.`),
  fields: z
    .array(z.string().min(1).max(64))
    .max(50)
    .optional()
    .describe('Keep only these keys of each record (e.g. ["id","name"]).'),
};
export const pageArgument = {
  page: z.number().int().min(1).optional().describe('Page number, from 1.'),
};

/** The tool as tools/list shows it; the JSON Schema is computed once. */
export function listedTool(tool: Tool): ListedTool {
  const inputSchema = z.toJSONSchema(z.object(tool.input).strict(), { io: 'input' }) as ListedTool['inputSchema'];
  delete (inputSchema as Record<string, unknown>).$schema;
  const gate = tool.confirm
    ? ' Confirm-gated: the first call returns a dry-run preview; call again with confirm: true to act.'
    : '';
  const scopes = tool.scopes.length ? ` Needs scope ${tool.scopes.join(' and ')}.` : '';
  return {
    name: tool.name,
    title: tool.title,
    description: `${tool.description}${gate}${scopes}`,
    inputSchema,
    annotations: {
      title: tool.title,
      readOnlyHint: tool.toolClass === 'read',
      destructiveHint: tool.toolClass === 'destructive',
      openWorldHint: false,
    },
  };
}
