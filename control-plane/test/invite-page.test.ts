/** The invitation page, in a real browser: the invitee opens the e-mailed link and joins with one click. */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from './support/app.ts';
import { hasChromium, launchBrowser } from './support/browser.ts';
import { seedOrganisation, type SeededOrganisation } from './support/seed.ts';

let t: TestApp;
let org: SeededOrganisation;
let baseUrl: string;
let browser: Browser;

describe.runIf(hasChromium)('invitation page', () => {
  beforeAll(async () => {
    t = await startTestApp();
    org = await seedOrganisation(t.db.sql, 'Northwind');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function invite(email: string, role = 'EDITOR'): Promise<string> {
    const res = await t.call(org.key, {
      method: 'POST',
      url: `/api/v1/organisations/${org.organisationId}/invite`,
      payload: { email, name: 'Dana Scully', role },
    });
    expect(res.statusCode).toBe(201);
    return res.json().data.token as string;
  }

  it('shows the invitation and accepts it, creating the user and the membership', async () => {
    const token = await invite('dana@northwind.test');
    const page = await browser.newPage();
    await page.goto(`${baseUrl}/invite/${token}`);
    await page.getByText('invited dana@northwind.test to join Northwind as EDITOR').waitFor();
    await page.getByLabel('Your name').fill('Dana K. Scully');
    await page.getByRole('button', { name: 'Accept invitation' }).click();
    await page.getByText('Welcome to Northwind.').waitFor();
    await page.screenshot({ path: `${process.env.TMPDIR ?? '/tmp'}/parley-invite-page.png` });
    await page.close();

    const [member] = await t.db.sql<{ role: string; name: string }[]>`
      select m.role, u.name from members m join users u on u.id = m.user_id
       where m.organisation_id = ${org.organisationId} and lower(u.email) = 'dana@northwind.test'`;
    expect(member).toEqual({ role: 'EDITOR', name: 'Dana K. Scully' });
    const [invitation] = await t.db.sql`select status from invitations where token = ${token}`;
    expect(invitation?.status).toBe('ACCEPTED');
  });

  it('tells the visitor when the invitation is no longer open', async () => {
    const token = await invite('late@northwind.test');
    await t.db.sql`update invitations set expires_at = now() - interval '1 minute' where token = ${token}`;
    const page = await browser.newPage();
    await page.goto(`${baseUrl}/invite/${token}`);
    await page.getByText('This invitation is expired.').waitFor();
    expect(await page.getByRole('button', { name: 'Accept invitation' }).count()).toBe(0);
    await page.close();
  });
});
