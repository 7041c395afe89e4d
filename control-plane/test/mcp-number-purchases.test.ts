/**
 * The MCP tools numbers_search and numbers_purchase, through the MCP SDK's client over real HTTP: on the
 * organisation's own carrier-a account, and as managed numbers rented by the service and paid from the plan wallet.
 * The confirm gate changes nothing before confirm: true.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { insertApiKey } from '../src/auth/api-key-repository.ts';
import { newId } from '../src/db/ids.ts';
import { startTelephonyTestApp, type TelephonyTestApp } from './fakes/carriers/telephony-test-app.ts';
import { PLAN, seedPlanGrant, seedSubscription, setBillingModel } from './support/billing.ts';
import { enableFeatures, seedOrganisation, seedWallet, type SeededOrganisation } from './support/seed.ts';
import { McpHosts, toolJson } from './support/mcp-client.ts';

let t: TelephonyTestApp;
let baseUrl: string;
let hosts: McpHosts;

beforeAll(async () => {
  t = await startTelephonyTestApp({ carrierAServiceAccount: true, rateLimits: { mcp: 1_000 } });
  baseUrl = await t.app.listen({ host: '127.0.0.1', port: 0 });
  hosts = new McpHosts(baseUrl);
});
afterAll(async () => {
  await hosts?.closeAll();
  await t?.close();
});

async function ownAccountOrg(): Promise<{ org: SeededOrganisation; authId: string }> {
  const org = await seedOrganisation(t.db.sql, 'Own account');
  await enableFeatures(t.db.sql, org.organisationId, ['self_serve_telephony']);
  await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 500 });
  const account = t.carrierA.addAccount();
  const res = await t.call(org.key, {
    method: 'POST',
    url: '/api/v1/telephony/carrier-a/connect',
    payload: { organisationId: org.organisationId, ...account },
  });
  expect(res.statusCode, res.body).toBe(201);
  return { org, authId: account.authId };
}

async function managedOrg(): Promise<SeededOrganisation> {
  const org = await seedOrganisation(t.db.sql, 'Managed');
  await enableFeatures(t.db.sql, org.organisationId, ['managed_numbers']);
  await t.db.sql`update organisations set billing_country = 'IN' where id = ${org.organisationId}`;
  await t.db.sql`insert into telephony_integrations (id, organisation_id, provider, account_ref, config)
    values (${newId()}, ${org.organisationId}, 'carrier-d', ${`kyc-${org.organisationId}`},
            ${t.db.sql.json({ kyc_status: 'approved' })})`;
  await setBillingModel(t.db.sql, org.organisationId, 'WALLET');
  await seedSubscription(t.db.sql, org.organisationId, PLAN.starterInr);
  await seedPlanGrant(t.db.sql, org.organisationId, { amountMinor: 100_000 });
  return org;
}

describe('numbers_search and numbers_purchase', () => {
  it("search and buy on the organisation's own carrier-a account, buying only once confirmed", async () => {
    const { org, authId } = await ownAccountOrg();
    t.carrierA.offer('US', ['+16505550100', '+16505550101']);
    const client = await hosts.connect(org.key);

    const found = toolJson(await client.callTool({ name: 'numbers_search', arguments: { pattern: '650' } }));
    expect(found.route).toBe('own_account');
    expect((found.numbers as { phoneNumber: string }[]).map((n) => n.phoneNumber)).toEqual([
      '+16505550100',
      '+16505550101',
    ]);

    const preview = toolJson(
      await client.callTool({ name: 'numbers_purchase', arguments: { phone_number: '+16505550100' } }),
    );
    expect(preview).toMatchObject({ dryRun: true, target: { route: 'own_account' } });
    expect(t.carrierA.numbers(authId).map((n) => n.number)).not.toContain('16505550100');

    const bought = toolJson(
      await client.callTool({ name: 'numbers_purchase', arguments: { phone_number: '+16505550100', confirm: true } }),
    );
    expect(bought).toMatchObject({ phoneNumber: '+16505550100', routingStatus: 'PURCHASED' });
    expect(t.carrierA.numbers(authId).map((n) => n.number)).toContain('16505550100');
  });

  it('rents a managed number for an organisation that gets them, the first month from the plan wallet', async () => {
    const org = await managedOrg();
    t.carrierA.offer('IN', ['+912250001111']);
    const client = await hosts.connect(org.key);

    const found = toolJson(await client.callTool({ name: 'numbers_search', arguments: { pattern: '22' } }));
    expect(found).toMatchObject({ route: 'managed', currency: 'INR', monthlyPriceMinor: 50_000 });

    const preview = toolJson(
      await client.callTool({ name: 'numbers_purchase', arguments: { phone_number: '+912250001111' } }),
    );
    expect(preview.effects).toEqual(expect.arrayContaining([expect.stringMatching(/50000 INR .* plan wallet/)]));
    const rented = toolJson(
      await client.callTool({ name: 'numbers_purchase', arguments: { phone_number: '+912250001111', confirm: true } }),
    );
    expect(rented).toMatchObject({ number: { phoneNumber: '+912250001111' }, rental: { status: 'ACTIVE' } });
  });

  it("a key without numbers:write gets the REST API's refusal as a tool result", async () => {
    const { org } = await ownAccountOrg();
    const { key } = await insertApiKey(t.db.sql, {
      organisationId: org.organisationId,
      userId: org.ownerId,
      name: 'read only',
      scopes: ['numbers:read'],
    });
    const client = await hosts.connect(key);
    const result = (await client.callTool({
      name: 'numbers_purchase',
      arguments: { phone_number: '+16505550199', confirm: true },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^Telephony API 403/) });
  });
});
