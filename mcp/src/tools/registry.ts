/**
 * The set of tools one server offers: their tools/list entries (built once) and tools/call, which checks the
 * arguments against the tool's schema, runs it, and turns every refusal into a tool result the host can show
 * (MCP rule 4) rather than a protocol error.
 */
import { z } from 'zod';
import type { CallToolResult, Tool as ListedTool } from '@modelcontextprotocol/sdk/types.js';
import { errorResult } from './results.ts';
import { listedTool, type Tool } from './tool.ts';
import { RestFailure, type ToolContext } from './tool-context.ts';

export interface ToolFailureLog {
  (tool: string, error: unknown): void;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.join('.') : 'arguments'}: ${issue.message}`)
    .join('; ');
}

export class ToolRegistry {
  readonly #tools = new Map<string, { tool: Tool; schema: z.ZodObject }>();
  readonly listed: ListedTool[];

  constructor(
    tools: readonly Tool[],
    readonly onFailure: ToolFailureLog = () => {},
  ) {
    for (const tool of tools) {
      if (this.#tools.has(tool.name)) throw new Error(`MCP tool ${tool.name} is defined twice`);
      // Unknown arguments are refused by name: a host that misspells `confirm` must not get a silent dry run forever.
      this.#tools.set(tool.name, { tool, schema: z.object(tool.input).strict() });
    }
    this.listed = tools.map(listedTool);
  }

  get size(): number {
    return this.#tools.size;
  }

  async call(name: string, args: unknown, context: ToolContext): Promise<CallToolResult> {
    const entry = this.#tools.get(name);
    if (!entry)
      return errorResult(`Unknown tool "${name}". tools/list names the ${this.#tools.size} tools this server offers.`);
    const parsed = entry.schema.safeParse(args ?? {});
    if (!parsed.success) return errorResult(`Invalid arguments for ${name}: ${describeIssues(parsed.error)}`);
    try {
      return await entry.tool.run(parsed.data, context);
    } catch (error) {
      if (error instanceof RestFailure) {
        const flow = error.flowErrors ? `\nflowErrors: ${JSON.stringify(error.flowErrors)}` : '';
        return errorResult(`${error.message}${flow}`);
      }
      // Our own fault: say so without internals, and log it for the operator.
      this.onFailure(name, error);
      return errorResult(
        `${name} failed unexpectedly; nothing more is known to the tool. Try again, or use the REST API.`,
      );
    }
  }
}
