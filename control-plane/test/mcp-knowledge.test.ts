/**
 * The MCP knowledge tools through the MCP SDK's client over real HTTP: a document added from text and from a base64
 * file (sent as the REST route's multipart form), processed, listed and read with its status, and deleted only once
 * confirmed; the REST API's refusals come back as tool results.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { KnowledgeJob } from '../src/knowledge/knowledge-job.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { WEBSITE_MD } from './support/knowledge-content.ts';
import { seedMember, seedOrganisation, type SeededOrganisation } from './support/seed.ts';
import { McpHosts, toolJson, toolText } from './support/mcp-client.ts';

let t: TestApp;
let baseUrl: string;
let org: SeededOrganisation;
let hosts: McpHosts;

beforeAll(async () => {
  t = await startTestApp({ rateLimits: { mcp: 1_000 } });
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  hosts = new McpHosts(baseUrl);
  org = await seedOrganisation(t.db.sql, 'Knowledge Org');
});
afterAll(async () => {
  await hosts?.closeAll();
  await t?.close();
});

const processAll = () => new KnowledgeJob(t.db.sql, pino({ level: 'silent' })).runOnce();

describe('knowledge tools', () => {
  it('adds from text and from a base64 file, lists and reads them with their status, deletes only once confirmed', async () => {
    const client = await hosts.connect(org.key);
    const fromText = toolJson(
      await client.callTool({ name: 'knowledge_add', arguments: { name: 'Café website', text: WEBSITE_MD } }),
    );
    expect(fromText).toMatchObject({ name: 'Café website', status: 'processing' });
    const csv = 'item,price\nflat white,3.40\ncroissant,2.10\n';
    const fromFile = toolJson(
      await client.callTool({
        name: 'knowledge_add',
        arguments: { name: 'Price list', file_name: 'prices.csv', file_base64: Buffer.from(csv).toString('base64') },
      }),
    );
    expect(fromFile).toMatchObject({ name: 'Price list', status: 'processing', file_count: 1 });

    await processAll();
    const read = toolJson(await client.callTool({ name: 'knowledge_get', arguments: { document_id: fromFile.id } }));
    expect(read).toMatchObject({ id: fromFile.id, status: 'ready' });
    expect(read.chunk_count).toBeGreaterThan(0);
    const listed = toolJson(await client.callTool({ name: 'knowledge_list', arguments: { fields: ['id', 'status'] } }));
    expect(listed.items).toEqual(
      expect.arrayContaining([
        { id: fromText.id, status: 'ready' },
        { id: fromFile.id, status: 'ready' },
      ]),
    );

    const preview = toolJson(
      await client.callTool({ name: 'knowledge_delete', arguments: { document_id: fromText.id } }),
    );
    expect(preview).toMatchObject({ dryRun: true, target: { id: fromText.id } });
    expect(toolJson(await client.callTool({ name: 'knowledge_get', arguments: { document_id: fromText.id } })).id).toBe(
      fromText.id,
    );
    const deleted = toolJson(
      await client.callTool({ name: 'knowledge_delete', arguments: { document_id: fromText.id, confirm: true } }),
    );
    expect(deleted).toEqual({ deleted: true, id: fromText.id });
    const gone = (await client.callTool({
      name: 'knowledge_get',
      arguments: { document_id: fromText.id },
    })) as CallToolResult;
    expect(gone.isError).toBe(true);
    expect(toolText(gone)).toMatch(/^Knowledge API 404/);
  });

  it('refuses what the route refuses: no content, an unreadable type, a key without knowledge:write', async () => {
    const client = await hosts.connect(org.key);
    const empty = (await client.callTool({ name: 'knowledge_add', arguments: { name: 'Empty' } })) as CallToolResult;
    expect(empty.isError).toBe(true);
    expect(toolText(empty)).toMatch(/^Knowledge API 400: Send text, a file/);
    const exe = (await client.callTool({
      name: 'knowledge_add',
      arguments: { name: 'Tool', file_name: 'tool.exe', file_base64: Buffer.from('MZ').toString('base64') },
    })) as CallToolResult;
    expect(toolText(exe)).toMatch(/^Knowledge API 400: file_name must end in one of/);

    const reader = await seedMember(t.db.sql, org.organisationId, 'VIEWER', ['knowledge:read']);
    const readOnly = await hosts.connect(reader.key);
    const refused = (await readOnly.callTool({
      name: 'knowledge_add',
      arguments: { name: 'Nope', text: 'Hello' },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(toolText(refused)).toMatch(/^Knowledge API 403: Insufficient scope/);
  });
});
