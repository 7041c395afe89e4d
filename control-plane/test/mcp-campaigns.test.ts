/**
 * The MCP campaigns tools and the launch_campaign prompt through the MCP SDK's client over real HTTP: a campaign
 * created with the default window, contacts added (duplicates skipped, bad numbers reported) and listed, started
 * and completed only once confirmed, paused, its statistics read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedOrganisation, seedPhoneNumber, seedWallet, type SeededOrganisation } from './support/seed.ts';
import { McpHosts, toolJson, toolText } from './support/mcp-client.ts';

let t: TestApp;
let baseUrl: string;
let org: SeededOrganisation;
let agentId: string;
let hosts: McpHosts;

beforeAll(async () => {
  t = await startTestApp({ rateLimits: { mcp: 1_000 } });
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  hosts = new McpHosts(baseUrl);
  org = await seedOrganisation(t.db.sql, 'Campaign Org');
  await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 5_000 });
  await seedPhoneNumber(t.db.sql, org.organisationId, { provider: 'carrier-a', phoneNumber: '+14155550120' });
  const agent = await t.call(org.key, {
    method: 'POST',
    url: '/api/v1/voice/agents',
    payload: { name: 'Reminder', agentIdentity: 'You call people.', agentTask: 'Remind them.', greetingMessage: 'Hi' },
  });
  expect(agent.statusCode, agent.body).toBe(201);
  agentId = agent.json().data.id;
});
afterAll(async () => {
  await hosts?.closeAll();
  await t?.close();
});

describe('campaigns tools', () => {
  it('create, add and list contacts, start and complete once confirmed, pause, statistics', async () => {
    const client = await hosts.connect(org.key);
    const call = async (name: string, args: Record<string, unknown>) =>
      toolJson(await client.callTool({ name, arguments: args }));
    const campaign = await call('campaigns_create', { name: 'Spring reminders', voice_agent_id: agentId });
    expect(campaign).toMatchObject({ status: 'DRAFT', callStartTime: '09:00', callEndTime: '17:00' });
    const id = campaign.id as string;

    const added = await call('campaigns_contacts_add', {
      campaign_id: id,
      contacts: [
        { phone: '+14155550131', name: 'Ann', variables: { slot: 'Tuesday' } },
        { phone: '+1 415 555 0131', name: 'Ann again' },
        { phone: '+14155550132' },
        { phone: 'not a number' },
      ],
    });
    expect(added).toMatchObject({ added: 2 });
    const contacts = await call('campaigns_contacts_list', { campaign_id: id, fields: ['phone', 'status'] });
    expect(contacts.total).toBe(2);
    expect((await call('campaigns_list', { fields: ['id', 'status'] })).items).toContainEqual({ id, status: 'DRAFT' });

    const preview = await call('campaigns_start', { campaign_id: id });
    expect(preview).toMatchObject({ dryRun: true, target: { id, status: 'DRAFT', totalContacts: 2 } });
    expect((await call('campaigns_get', { campaign_id: id })).status).toBe('DRAFT');
    const started = await call('campaigns_start', { campaign_id: id, confirm: true });
    expect(['SCHEDULED', 'IN_PROGRESS']).toContain(started.status);
    expect((await call('campaigns_pause', { campaign_id: id })).status).toBe('PAUSED');
    const stats = await call('campaigns_stats', { campaign_id: id });
    expect(JSON.stringify(stats)).toContain('2');

    expect(await call('campaigns_complete', { campaign_id: id })).toMatchObject({ dryRun: true });
    expect((await call('campaigns_get', { campaign_id: id })).status).toBe('PAUSED');
    const completed = await call('campaigns_complete', { campaign_id: id, confirm: true });
    expect(['COMPLETED', 'CANCELLED']).toContain(completed.status);
  });

  it('names a bad window by its field, as the REST API does', async () => {
    const client = await hosts.connect(org.key);
    const refused = (await client.callTool({
      name: 'campaigns_create',
      arguments: { name: 'Late', voice_agent_id: agentId, call_start_time: '18:00', call_end_time: '09:00' },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(toolText(refused)).toMatch(/^Campaigns API 400/);
  });

  it('ships the launch_campaign prompt, which starts nothing without approval', async () => {
    const client = await hosts.connect(org.key);
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name).sort()).toEqual(['create_voice_agent', 'launch_campaign']);
    const prompt = await client.getPrompt({ name: 'launch_campaign', arguments: { campaign_id: 'c123' } });
    const words = (prompt.messages[0]!.content as { text: string }).text;
    expect(words).toContain('the campaign c123');
    expect(words).toMatch(/campaigns_start without confirm.*confirm: true/s);
  });
});
