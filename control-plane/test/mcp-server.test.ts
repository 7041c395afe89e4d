/**
 * The MCP server mounted at /mcp, driven by the MCP SDK's own client over real HTTP against a real control plane
 * and database: authentication and its metadata, tools/list, tool calls that go through the REST API (so REST's
 * refusals come back as tool results), the confirm gate, list paging, trimming and the 30 KB cut, scrubbing, the
 * per-connection limit, and the protocol's errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fetchRestClient } from '@parley/mcp';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { newId } from '../src/db/ids.ts';
import { PUBLIC_URL, startTestApp, type TestApp } from './support/app.ts';
import {
  seedAgent,
  seedCall,
  seedMember,
  seedOrganisation,
  seedPhoneNumber,
  seedWallet,
  updateAgentColumns,
  type SeededOrganisation,
} from './support/seed.ts';
import { insertApiKey } from '../src/auth/api-key-repository.ts';

/** Every tool the server offers today (spec document 2's tools whose REST routes exist). */
const EXPECTED_TOOLS = [
  'agents_list',
  'agents_get',
  'agents_create',
  'agents_update',
  'agents_delete',
  'agents_duplicate',
  'agents_list_voices',
  'campaigns_list',
  'campaigns_get',
  'campaigns_create',
  'campaigns_contacts_list',
  'campaigns_contacts_add',
  'campaigns_start',
  'campaigns_pause',
  'campaigns_complete',
  'campaigns_stats',
  'calls_list',
  'calls_get',
  'calls_get_transcript',
  'calls_search',
  'calls_place',
  'sessions_get',
  'sessions_by_agent',
  'sessions_conversation',
  'numbers_list',
  'numbers_search',
  'numbers_purchase',
  'numbers_assign',
  'numbers_unassign',
  'knowledge_list',
  'knowledge_get',
  'knowledge_add',
  'knowledge_delete',
  'account_balance',
  'account_org',
  'account_topup',
  'service_help',
];

let t: TestApp;
let baseUrl: string;
let org: SeededOrganisation;
const clients: Client[] = [];

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'parley-test-host', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  clients.push(client);
  return client;
}

function text(result: unknown): string {
  return (result as CallToolResult).content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

function json(result: unknown): Record<string, unknown> {
  expect((result as CallToolResult).isError, text(result)).toBeFalsy();
  return JSON.parse((result as CallToolResult).content[0]!.type === 'text' ? text(result) : '{}') as Record<
    string,
    unknown
  >;
}

async function post(body: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body,
  });
}

const LIST_TOOLS = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

beforeAll(async () => {
  t = await startTestApp({ rateLimits: { mcp: 1_000 } });
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  org = await seedOrganisation(t.db.sql, 'Mcp Org');
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await t?.close();
});

describe('the endpoint', () => {
  it('reports its tools and prompts on the health route, without authentication', async () => {
    const response = await fetch(`${baseUrl}/mcp/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: 'ok',
      name: 'parley',
      tools: EXPECTED_TOOLS.length,
      prompts: 2,
    });
  });

  it('answers a request without a token 401, pointing at the protected resource metadata', async () => {
    const response = await post(LIST_TOOLS, {});
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate');
    expect(challenge).toBe(`Bearer resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource/mcp"`);
    const metadata = (await (await fetch(`${baseUrl}/.well-known/oauth-protected-resource/mcp`)).json()) as {
      scopes_supported: string[];
    };
    expect(metadata).toMatchObject({ resource: `${PUBLIC_URL}/mcp`, bearer_methods_supported: ['header'] });
    expect(metadata.scopes_supported).toContain('agents:read');
  });

  it('refuses an unknown or revoked key as an invalid token, at once', async () => {
    const forged = await post(LIST_TOOLS, {
      authorization: 'Bearer parley_prod_abcdefgh_00000000000000000000000000000000',
    });
    expect(forged.status).toBe(401);
    expect(forged.headers.get('www-authenticate')).toContain('error="invalid_token"');

    const member = await seedMember(t.db.sql, org.organisationId, 'ADMIN', ['agents:read']);
    const before = await post(LIST_TOOLS, { authorization: `Bearer ${member.key}` });
    expect(before.status).toBe(200);
    await t.db.sql`update api_keys set revoked_at = now() where id = ${member.id}`;
    await t.keys.revoke({ keyId: member.id });
    const after = await post(LIST_TOOLS, { authorization: `Bearer ${member.key}` });
    expect(after.status).toBe(401);
  });

  it('answers JSON-RPC errors for a body that is not JSON and for GET', async () => {
    const broken = await post('{"jsonrpc":', { authorization: `Bearer ${org.key}` });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: { code: number } }).error.code).toBe(-32700);
    const get = await fetch(`${baseUrl}/mcp`, { headers: { authorization: `Bearer ${org.key}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('limits each connection on its own, apart from the REST limits', async () => {
    const limited = await startTestApp({ db: t.db, bus: t.bus, rateLimits: { mcp: 3 } });
    try {
      const url = await limited.app.listen({ host: '127.0.0.1', port: 0 });
      const other = await seedMember(t.db.sql, org.organisationId, 'ADMIN', ['agents:read']);
      const send = (key: string) =>
        fetch(`${url}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${key}`,
          },
          body: LIST_TOOLS,
        });
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await send(org.key)).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect((await send(other.key)).status).toBe(200);
      // The REST API still answers the limited key.
      expect((await limited.call(org.key, { method: 'GET', url: '/api/v1/api-keys/me' })).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('the REST client over HTTP (an MCP server running apart from the control plane)', () => {
  it("reaches the REST API with the caller's key and passes refusals through", async () => {
    const rest = fetchRestClient(`${baseUrl}/api/v1/`);
    const me = await rest({ method: 'GET', path: '/api-keys/me', token: org.key });
    expect(me.status).toBe(200);
    expect((me.body as { data: { organisationId: string } }).data.organisationId).toBe(org.organisationId);
    const listed = await rest({
      method: 'GET',
      path: '/voice/agents',
      query: { limit: 1, search: undefined },
      token: org.key,
    });
    expect(listed.status).toBe(200);
    const refused = await rest({ method: 'POST', path: '/voice/agents', body: { name: 'x' }, token: org.key });
    expect(refused.status).toBe(400);
    expect((refused.body as { success: boolean }).success).toBe(false);
  });
});

describe('tools/list and prompts', () => {
  it('lists every tool with an input schema, the confirm-gated ones saying so', async () => {
    const client = await connect(org.key);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...EXPECTED_TOOLS].sort());
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      // Unknown arguments are refused, and the listing says so.
      expect(tool.inputSchema.additionalProperties).toBe(false);
      expect(tool.description!.length).toBeGreaterThan(20);
    }
    const gated = tools
      .filter((tool) => tool.description!.includes('Confirm-gated'))
      .map((tool) => tool.name)
      .sort();
    expect(gated).toEqual([
      'account_topup',
      'agents_delete',
      'calls_place',
      'campaigns_complete',
      'campaigns_start',
      'knowledge_delete',
      'numbers_assign',
      'numbers_purchase',
      'numbers_unassign',
    ]);
    const create = tools.find((tool) => tool.name === 'agents_create')!;
    expect([...(create.inputSchema.required ?? [])].sort()).toEqual(['identity', 'name', 'task']);
    expect(tools.find((tool) => tool.name === 'agents_list')!.annotations).toMatchObject({ readOnlyHint: true });
  });

  it('ships create_voice_agent, filling in what the user already said', async () => {
    const client = await connect(org.key);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(['create_voice_agent', 'launch_campaign']);
    const prompt = await client.getPrompt({
      name: 'create_voice_agent',
      arguments: { purpose: 'book dental appointments' },
    });
    const message = prompt.messages[0]!.content;
    expect(message.type === 'text' && message.text).toContain('Purpose: book dental appointments');
  });
});

describe('agents tools', () => {
  it('creates, edits with a diff, copies and lists an agent through the REST API', async () => {
    const client = await connect(org.key);
    const created = json(
      await client.callTool({
        name: 'agents_create',
        arguments: {
          name: 'Front desk',
          identity: 'You are the front desk of Acme Dental.',
          task: 'Book appointments.',
          greeting: 'Hello, Acme Dental!',
        },
      }),
    );
    const agent = created.agent as { id: string; agentIdentity: string };
    expect(agent.agentIdentity).toBe('You are the front desk of Acme Dental.');
    const viaRest = await t.call(org.key, { method: 'GET', url: `/api/v1/voice/agents/${agent.id}` });
    expect(viaRest.json().data.greetingMessage).toBe('Hello, Acme Dental!');

    const updated = json(
      await client.callTool({
        name: 'agents_update',
        arguments: { agent_id: agent.id, greeting: 'Good day, Acme Dental!', language_accent: 'Irish English' },
      }),
    );
    expect(updated.changed).toEqual({
      greetingMessage: { before: 'Hello, Acme Dental!', after: 'Good day, Acme Dental!' },
      languageAccent: { before: null, after: 'Irish English' },
    });

    const copy = json(await client.callTool({ name: 'agents_duplicate', arguments: { agent_id: agent.id } }));
    expect((copy.agent as { name: string }).name).toBe('Front desk (copy)');

    const listed = json(
      await client.callTool({ name: 'agents_list', arguments: { fields: ['id', 'name'], search: 'Front desk' } }),
    );
    expect(listed.total).toBe(2);
    expect(listed.items).toEqual(expect.arrayContaining([{ id: agent.id, name: 'Front desk' }]));
  });

  it('previews a delete without deleting, and deletes only with confirm', async () => {
    const client = await connect(org.key);
    const agentId = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    const preview = json(await client.callTool({ name: 'agents_delete', arguments: { agent_id: agentId } }));
    expect(preview).toMatchObject({ dryRun: true, target: { id: agentId } });
    expect((await t.call(org.key, { method: 'GET', url: `/api/v1/voice/agents/${agentId}` })).statusCode).toBe(200);

    const done = json(
      await client.callTool({ name: 'agents_delete', arguments: { agent_id: agentId, confirm: true } }),
    );
    expect(done).toMatchObject({ deleted: true, id: agentId });
    expect((await t.call(org.key, { method: 'GET', url: `/api/v1/voice/agents/${agentId}` })).statusCode).toBe(404);
  });

  it("returns the REST API's refusals as tool results: scope, not found, validation", async () => {
    const reader = await seedMember(t.db.sql, org.organisationId, 'ADMIN', ['calls:read']);
    const client = await connect(reader.key);
    const refused = await client.callTool({ name: 'agents_list', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^Agents API 403: Insufficient scope/);

    const owner = await connect(org.key);
    const missing = await owner.callTool({ name: 'agents_get', arguments: { agent_id: newId() } });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/^Agents API 404: /);

    const noGreeting = await owner.callTool({
      name: 'agents_create',
      arguments: { name: 'Quiet', identity: 'I am quiet.', task: 'Listen.' },
    });
    expect(noGreeting.isError).toBe(true);
    expect(text(noGreeting)).toMatch(/^Agents API 400: .*greetingMessage/);
  });

  it('names a bad argument, including one it does not know', async () => {
    const client = await connect(org.key);
    const none = await client.callTool({ name: 'agents_list', arguments: { limit: 0 } });
    expect(none.isError).toBe(true);
    expect(text(none)).toMatch(/Invalid arguments for agents_list: limit: /);
    // Over the cap is not a mistake to refuse: it is read as the cap (MCP rule 3).
    expect(json(await client.callTool({ name: 'agents_list', arguments: { limit: 500 } })).limit).toBe(100);
    const misspelt = await client.callTool({ name: 'agents_delete', arguments: { agent_id: 'x', confrim: true } });
    expect(text(misspelt)).toMatch(/confrim/);
  });

  it('redacts credential-shaped values in what it returns', async () => {
    const client = await connect(org.key);
    const agentId = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    await updateAgentColumns(t.db.sql, agentId, {
      custom_variables: {
        crm: 'https://bot:hunter2@crm.example.com/hook?token=abc123&page=2',
        note: `use ${org.key} here`,
      },
    });
    const agent = json(await client.callTool({ name: 'agents_get', arguments: { agent_id: agentId } }));
    const variables = JSON.stringify(agent.customVariables);
    expect(variables).not.toContain('hunter2');
    expect(variables).not.toContain('abc123');
    expect(variables).not.toContain(org.key);
    expect(variables).toContain('page=2');
    expect(variables).toContain('[redacted]');
  });

  it('cuts a list at about 30 KB with a note, and trims with fields', async () => {
    const big = await seedOrganisation(t.db.sql, 'Big Org');
    const longTask = 'Ask for the order number, then read back every line of the order. '.repeat(16);
    for (let i = 0; i < 40; i++) {
      const id = await seedAgent(t.db.sql, big.organisationId, 'VOICE');
      await updateAgentColumns(t.db.sql, id, { agent_task: longTask });
    }
    const client = await connect(big.key);
    const full = json(await client.callTool({ name: 'agents_list', arguments: { limit: 40 } }));
    expect(JSON.stringify(full).length).toBeLessThan(32_000);
    expect(full.count).toBeLessThan(40);
    expect(full.total).toBe(40);
    expect(full.note).toMatch(/Cut at about 30 KB/);
    const trimmed = json(await client.callTool({ name: 'agents_list', arguments: { limit: 40, fields: ['id'] } }));
    expect(trimmed.count).toBe(40);
    expect(trimmed.note).toBeUndefined();
    const defaultPage = json(await client.callTool({ name: 'agents_list', arguments: { fields: ['id'] } }));
    expect(defaultPage.count).toBe(20);
  });
});

describe('calls and sessions tools', () => {
  let agentId: string;
  let refundCall: string;
  let otherCall: string;

  beforeAll(async () => {
    agentId = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    refundCall = await seedCall(t.db.sql, org.organisationId, agentId, {
      call_status: 'COMPLETED',
      created_at: new Date(Date.now() - 60_000),
    });
    otherCall = await seedCall(t.db.sql, org.organisationId, agentId, { call_status: 'COMPLETED' });
    const lines: Array<[string, string, string, number]> = [
      [refundCall, 'assistant', 'Hello, how can I help?', 0],
      [refundCall, 'user', 'I would like a refund for my order.', 2_000],
      [otherCall, 'user', 'What time do you open tomorrow?', 1_000],
    ];
    for (const [callId, speaker, line, start] of lines) {
      await t.db.sql`insert into call_transcripts (id, organisation_id, call_id, speaker, text, start_ms, end_ms)
                     values (${newId()}, ${org.organisationId}, ${callId}, ${speaker}, ${line}, ${start}, ${start + 1_500})`;
    }
  });

  it('finds calls by what was said, and reads a transcript and a conversation', async () => {
    const client = await connect(org.key);
    const found = json(await client.callTool({ name: 'calls_search', arguments: { query: 'REFUND' } }));
    expect((found.items as Array<{ id: string }>).map((call) => call.id)).toEqual([refundCall]);

    const transcript = json(
      await client.callTool({ name: 'calls_get_transcript', arguments: { room_name: `room-${refundCall}` } }),
    );
    expect((transcript.transcripts as Array<{ text: string }>).map((line) => line.text)).toEqual([
      'Hello, how can I help?',
      'I would like a refund for my order.',
    ]);

    const conversation = json(
      await client.callTool({ name: 'sessions_conversation', arguments: { session_id: refundCall } }),
    );
    expect(conversation.conversation).toEqual([
      { speaker: 'agent', text: 'Hello, how can I help?', atMs: 0 },
      { speaker: 'caller', text: 'I would like a refund for my order.', atMs: 2_000 },
    ]);
    const byRoom = json(await client.callTool({ name: 'calls_get', arguments: { call_id: `room-${refundCall}` } }));
    expect(byRoom.id).toBe(refundCall);
  });

  it("pages an agent's sessions by offset", async () => {
    const client = await connect(org.key);
    const first = json(
      await client.callTool({ name: 'sessions_by_agent', arguments: { agent_id: agentId, limit: 1 } }),
    );
    expect((first.items as Array<{ id: string }>).map((call) => call.id)).toEqual([otherCall]);
    const second = json(
      await client.callTool({ name: 'sessions_by_agent', arguments: { agent_id: agentId, limit: 1, offset: 1 } }),
    );
    expect((second.items as Array<{ id: string }>).map((call) => call.id)).toEqual([refundCall]);
    const session = json(await client.callTool({ name: 'sessions_get', arguments: { session_id: refundCall } }));
    expect(session.roomName).toBe(`room-${refundCall}`);
  });

  it('previews a call without placing it; with confirm the REST API decides', async () => {
    const client = await connect(org.key);
    const countCalls = async () =>
      (await t.db.sql<{ n: number }[]>`select count(*)::int as n from call_records where agent_id = ${agentId}`)[0]!.n;
    const before = await countCalls();
    const preview = json(
      await client.callTool({ name: 'calls_place', arguments: { agent_id: agentId, phone_number: '+14155550123' } }),
    );
    expect(preview).toMatchObject({ dryRun: true, target: { to: '+14155550123', from: null, agent: { id: agentId } } });
    expect(preview.effects).toEqual([expect.stringMatching(/no calling number/)]);
    expect(await countCalls()).toBe(before);
    // The seeded agent has no calling number: the placement route refuses, and the refusal is the tool's result.
    const placed = await client.callTool({
      name: 'calls_place',
      arguments: { agent_id: agentId, phone_number: '+14155550123', confirm: true },
    });
    expect(placed.isError).toBe(true);
    expect(text(placed)).toMatch(/^Calls API 4\d\d: /);
    expect(await countCalls()).toBe(before);
  });
});

describe('numbers and account tools', () => {
  it('routes a number to an agent only after the preview, and detaches it', async () => {
    const client = await connect(org.key);
    const agent = json(
      await client.callTool({
        name: 'agents_create',
        arguments: { name: 'Inbound', identity: 'You answer the phone.', task: 'Take messages.', greeting: 'Hello!' },
      }),
    ).agent as { id: string };
    const numberId = await seedPhoneNumber(t.db.sql, org.organisationId, {
      provider: 'carrier-b',
      phoneNumber: '+14155550199',
    });

    const preview = json(
      await client.callTool({ name: 'numbers_assign', arguments: { number: '+1 415 555 0199', agent_id: agent.id } }),
    );
    expect(preview).toMatchObject({ dryRun: true, target: { number: { id: numberId, agent: null } } });
    const stillFree = json(
      await client.callTool({ name: 'numbers_list', arguments: { fields: ['id', 'routingStatus', 'agentId'] } }),
    );
    expect(stillFree.items).toContainEqual({ id: numberId, routingStatus: null, agentId: null });

    const assigned = json(
      await client.callTool({
        name: 'numbers_assign',
        arguments: { number: numberId, agent_id: agent.id, confirm: true },
      }),
    );
    expect(assigned).toMatchObject({ id: numberId, routingStatus: 'ASSIGNED' });
    const detached = json(
      await client.callTool({ name: 'numbers_unassign', arguments: { number: numberId, confirm: true } }),
    );
    expect(detached.routingStatus).not.toBe('ASSIGNED');

    const unknown = await client.callTool({ name: 'numbers_unassign', arguments: { number: '+19999999999' } });
    expect(text(unknown)).toMatch(/^Telephony API 404: /);
  });

  it('shows the wallet, billing status and plan wallet; the wallet is null before it exists', async () => {
    const client = await connect(org.key);
    const before = json(await client.callTool({ name: 'account_balance', arguments: {} }));
    expect(before).toMatchObject({
      organisationId: org.organisationId,
      wallet: null,
      status: { canMakeCalls: false, ratePerMinute: 0.05, billingModel: 'LEGACY_USD' },
      plan: { balanceMinor: 0, subscription: null },
    });
    const funded = await seedOrganisation(t.db.sql, 'Mcp funded');
    await seedWallet(t.db.sql, funded.organisationId, { balanceMinor: 2_500, hasPaid: true });
    const after = json(await (await connect(funded.key)).callTool({ name: 'account_balance', arguments: {} }));
    expect(after).toMatchObject({
      wallet: { balance: 25, currency: 'USD', hasPaid: true },
      status: { canMakeCalls: true, balance: 25 },
    });
    const narrow = await insertApiKey(t.db.sql, {
      organisationId: org.organisationId,
      userId: org.ownerId,
      name: 'wallet only',
      scopes: ['wallet:read'],
    });
    const refused = await (await connect(narrow.key)).callTool({ name: 'account_balance', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toMatch(/^Billing API 403: Insufficient scope/);
  });

  it('shows the organisations the key sees, and the guide', async () => {
    const client = await connect(org.key);
    const organisations = json(await client.callTool({ name: 'account_org', arguments: { fields: ['id', 'name'] } }));
    expect(organisations.items).toEqual([{ id: org.organisationId, name: 'Mcp Org' }]);
    const guide = await client.callTool({ name: 'service_help', arguments: { topic: 'confirm gate' } });
    expect(text(guide)).toMatch(/^## Confirm gate/);
    const other = await client.callTool({
      name: 'agents_list',
      arguments: { org_id: (await seedOrganisation(t.db.sql, 'Elsewhere')).organisationId },
    });
    expect(other.isError).toBe(true);
    expect(text(other)).toMatch(/^Agents API 403: /);
  });
});
