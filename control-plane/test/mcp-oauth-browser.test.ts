/**
 * The MCP sign-in pages in a real browser (headless Chromium through playwright-core, JavaScript off, as the pages
 * need none): from the authorize URL through sign-up, consent and the redirect to the host's loopback callback,
 * whose code the token endpoint exchanges; then the connected-hosts page disconnects it. Proves the cookies, the
 * CSRF fields, the content security policy and the redirects work as a browser applies them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from './support/app.ts';
import { hasChromium, launchBrowser } from './support/browser.ts';

let t: TestApp;
let baseUrl: string;
let browser: Browser;
let callback: Server;
let callbackUrl: string;
const received: URL[] = [];

beforeAll(async () => {
  if (!hasChromium) return;
  t = await startTestApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  // The host's loopback redirect: it records what the browser brings back.
  callback = createServer((request, response) => {
    received.push(new URL(request.url ?? '/', 'http://127.0.0.1'));
    response.writeHead(200, { 'content-type': 'text/html' }).end('<p>You can close this window.</p>');
  });
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => callback?.close(resolve));
  await t?.close();
});

describe.skipIf(!hasChromium)('MCP sign-in pages in Chromium', () => {
  it('signs up, approves, hands the code to the host, and disconnects it', async () => {
    const registered = await t.call(undefined, {
      method: 'POST',
      url: '/oauth/register',
      payload: { client_name: 'Browser Host', redirect_uris: [callbackUrl] },
    });
    const clientId = registered.json().client_id as string;
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL(`${baseUrl}/oauth/authorize`);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: callbackUrl,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 'browser-state',
      scope: 'agents:read calls:read',
    }))
      authorize.searchParams.set(name, value);

    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(authorize.href);
    expect(page.url()).toContain('/oauth/login');
    await page.click('text=Create one');
    await page.fill('input[name=name]', 'Browser Person');
    await page.fill('input[name=email]', `browser-${Date.now()}@example.com`);
    await page.fill('input[name=password]', 'a browser password');
    await page.fill('input[name=organisation]', 'Browser Ltd');
    await page.click('button[type=submit]');
    await expect.poll(() => page.url()).toContain('/oauth/consent');
    const consent = await page.textContent('body');
    expect(consent).toContain('Browser Host wants to use Parley');
    expect(consent).toContain('See your agents and the voices they can use');
    expect(consent).not.toContain('Place phone calls');
    await page.click('button[value=approve]');
    await expect.poll(() => received.length).toBe(1);
    const back = received[0]!;
    expect(back.searchParams.get('state')).toBe('browser-state');

    const issued = await t.call(undefined, {
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: clientId,
        code: back.searchParams.get('code')!,
        redirect_uri: callbackUrl,
        code_verifier: verifier,
      }).toString(),
    });
    expect(issued.statusCode).toBe(200);
    const key = issued.json().access_token as string;
    expect((await t.call(key, { method: 'GET', url: '/api/v1/api-keys/me' })).statusCode).toBe(200);

    await page.goto(`${baseUrl}/oauth/connections`);
    expect(await page.textContent('table')).toContain('Browser Host');
    await page.click('text=Disconnect');
    await expect.poll(async () => page.textContent('body')).toContain('No AI host is connected');
    expect((await t.call(key, { method: 'GET', url: '/api/v1/api-keys/me' })).statusCode).toBe(401);
    await context.close();
  });
});
