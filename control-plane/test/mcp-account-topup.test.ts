/**
 * The MCP tool account_topup through the MCP SDK's client over real HTTP, against the payment processor's contract
 * fake: a dry run that only prices, a confirmed call that returns a checkout link the scrubber leaves whole (the
 * user must open it), the wallet credited when the processor confirms the payment, plan wallets, and the refusal
 * for a key owner who is not OWNER or ADMIN.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { PUBLIC_URL, startTestApp, type TestApp } from './support/app.ts';
import { seedMember, seedOrganisation, type SeededOrganisation } from './support/seed.ts';
import { setBillingModel, setCountry } from './support/billing.ts';
import { RazorpayFake } from './fakes/payments/razorpay-fake.ts';
import { McpHosts, toolJson, toolText } from './support/mcp-client.ts';

let fake: RazorpayFake;
let t: TestApp;
let baseUrl: string;
let hosts: McpHosts;

beforeAll(async () => {
  fake = await RazorpayFake.start();
  t = await startTestApp({
    rateLimits: { mcp: 1_000 },
    payments: {
      apiUrl: fake.url,
      credentials: {
        keyId: fake.account.keyId,
        keySecret: fake.account.keySecret,
        webhookSecret: fake.account.webhookSecret,
      },
      usdInrRateE4: 832_500,
    },
  });
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  hosts = new McpHosts(baseUrl);
  fake.webhookUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/webhooks/payments/razorpay`;
});
afterAll(async () => {
  await hosts?.closeAll();
  await t?.close();
  await fake?.close();
});

async function organisation(country: string, model: 'LEGACY_USD' | 'WALLET'): Promise<SeededOrganisation> {
  const org = await seedOrganisation(t.db.sql, `Top-up ${country} ${model}`);
  await setCountry(t.db.sql, org.organisationId, country);
  await setBillingModel(t.db.sql, org.organisationId, model);
  return org;
}

const payments = (organisationId: string) =>
  t.db.sql<{ id: string; pg_order_id: string; status: string }[]>`
    select id, pg_order_id, status from payments where organisation_id = ${organisationId}`;

describe('account_topup', () => {
  it('prices first, then returns a checkout link that opens the page; the wallet is credited when paid', async () => {
    const org = await organisation('US', 'LEGACY_USD');
    const client = await hosts.connect(org.key);

    const preview = toolJson(await client.callTool({ name: 'account_topup', arguments: { amount: 25 } }));
    expect(preview).toMatchObject({ dryRun: true, target: { wallet: 'pay-as-you-go wallet' } });
    expect(preview.effects).toEqual(expect.arrayContaining([expect.stringMatching(/the wallet receives 25 USD/)]));
    expect(await payments(org.organisationId)).toEqual([]);

    const done = toolJson(await client.callTool({ name: 'account_topup', arguments: { amount: 25, confirm: true } }));
    const checkoutUrl = done.checkoutUrl as string;
    // Whole, not redacted: the user must be able to open it.
    expect(checkoutUrl).not.toContain('[redacted]');
    expect(checkoutUrl).toMatch(new RegExp(`^${PUBLIC_URL}/pay/${done.paymentId as string}/\\d+\\.`));
    const page = await t.app.inject({ method: 'GET', url: new URL(checkoutUrl).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('25.00 USD');

    const [payment] = await payments(org.organisationId);
    await fake.pay(payment!.pg_order_id);
    const balance = await t.call(org.key, { method: 'GET', url: `/api/v1/wallet/${org.organisationId}` });
    expect(balance.json().data.balance).toBe(25);
  });

  it('on plan billing creates a plan-wallet checkout', async () => {
    const org = await organisation('US', 'WALLET');
    const client = await hosts.connect(org.key);
    const preview = toolJson(await client.callTool({ name: 'account_topup', arguments: { amount: 12 } }));
    expect(preview).toMatchObject({ dryRun: true, target: { wallet: 'plan wallet' } });
    expect(await payments(org.organisationId)).toEqual([]);
    const done = toolJson(await client.callTool({ name: 'account_topup', arguments: { amount: 12, confirm: true } }));
    expect(done).toMatchObject({ amountMinor: 1200, currency: 'USD', chargeMinor: 1200 });
    expect(done.checkoutUrl).toMatch(new RegExp(`^${PUBLIC_URL}/pay/`));
    expect(await payments(org.organisationId)).toHaveLength(1);
  });

  it('refuses a key whose owner is an EDITOR, as the REST API does, and creates nothing', async () => {
    const org = await organisation('US', 'LEGACY_USD');
    const member = await seedMember(t.db.sql, org.organisationId, 'EDITOR', ['wallet:write']);
    const client = await hosts.connect(member.key);
    const result = (await client.callTool({
      name: 'account_topup',
      arguments: { amount: 25, confirm: true },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(toolText(result)).toMatch(/^Billing API 403: .*OWNER or ADMIN/);
    expect(await payments(org.organisationId)).toEqual([]);
  });
});
