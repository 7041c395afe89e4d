/**
 * An AI host in tests: the MCP SDK's own client over real HTTP against a test app's /mcp, with a bearer token, and
 * the two ways a test reads a tool's result (its text; its JSON, failing the test when the tool answered an error).
 */
import { expect } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The hosts a test file connects, closed together after it. */
export class McpHosts {
  readonly #clients: Client[] = [];

  /** @param baseUrl the listening test app, e.g. `http://127.0.0.1:41234` */
  constructor(readonly baseUrl: string) {}

  async connect(token: string): Promise<Client> {
    const client = new Client({ name: 'parley-test-host', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${this.baseUrl}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    this.#clients.push(client);
    return client;
  }

  async closeAll(): Promise<void> {
    await Promise.all(this.#clients.splice(0).map((client) => client.close()));
  }
}

export function toolText(result: unknown): string {
  return (result as CallToolResult).content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

/** The tool's JSON answer; the test fails, showing the text, when the tool answered an error. */
export function toolJson(result: unknown): Record<string, unknown> {
  expect((result as CallToolResult).isError, toolText(result)).toBeFalsy();
  return JSON.parse(toolText(result)) as Record<string, unknown>;
}
