/**
 * The website widget in a real browser (headless Chromium): a shop's page on another origin embeds
 * `<script src=".../widget.js" data-agent data-token>`; the visitor opens the chat, gives name and phone, sends a
 * message and reads the reply as the fake LLM streams it; after a reload the same conversation (roomName) comes
 * back. A screenshot of the chat is kept in test-artefacts/ (gitignored).
 */
import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from './support/app.ts';
import { hasChromium, launchBrowser } from './support/browser.ts';
import { seedOrganisation, seedWallet } from './support/seed.ts';
import { createIsolatedBus, startTestLlm, type TestLlm } from './support/workers.ts';
import { createWidgetAgent, type WidgetAgent } from './support/widget.ts';

const ARTEFACTS = fileURLToPath(new URL('../../test-artefacts/', import.meta.url));
/** Longest wait for something the page shows, ms: a reply from the fake model takes tens of milliseconds. */
const UI_TIMEOUT_MS = 10_000;
const poll = { timeout: UI_TIMEOUT_MS, interval: 20 };

let t: TestApp;
let llm: TestLlm;
let widget: WidgetAgent;
let parleyUrl: string;
let shop: Server;
let shopUrl: string;
let browser: Browser;

describe.runIf(hasChromium)('website widget in a browser', () => {
  beforeAll(async () => {
    const bus = await createIsolatedBus();
    t = await startTestApp({ bus });
    llm = await startTestLlm(bus);
    const org = await seedOrganisation(t.db.sql, 'Acme Plumbing');
    await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 500 });
    widget = await createWidgetAgent(t, org, { name: 'Acme helper', webCallEnabled: true });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    parleyUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    // The customer's website: another origin (localhost, not 127.0.0.1), so every widget request is cross-origin.
    shop = createServer((req, res) => {
      const query = new URL(req.url ?? '/', 'http://shop.invalid').searchParams;
      const agent = query.get('agent') ?? widget.agentId;
      const token = query.get('token') ?? widget.token;
      // ?nows: a network whose proxy refuses websocket upgrades (each socket fails as it opens).
      const noWebsockets = query.has('nows')
        ? `<script>window.WebSocket = class extends EventTarget {
  constructor() { super(); setTimeout(() => { this.dispatchEvent(new Event('error')); this.dispatchEvent(new Event('close')); }, 5); }
  send() {} close() {}
};</script>`
        : '';
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(`<!doctype html><html><head><title>Acme Plumbing</title>${noWebsockets}</head>
<body style="font-family:sans-serif"><h1>Acme Plumbing</h1><p>Boilers, pipes and taps.</p>
<script src="${parleyUrl}/widget.js" data-agent="${agent}" data-token="${token}"></script>
</body></html>`);
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    shopUrl = `http://localhost:${(shop.address() as AddressInfo).port}/`;
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => (shop ? shop.close(() => resolve()) : resolve()));
    await llm?.close();
    await t?.close();
    await t?.bus.close();
  });

  it('chats with streamed replies, resumes the conversation after a reload, and offers a call for a web-calling agent', async () => {
    const page = await browser.newPage({ viewport: { width: 900, height: 640 } });
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    const sockets: string[] = [];
    page.on('websocket', (socket) => sockets.push(new URL(socket.url()).pathname));
    await page.goto(shopUrl);
    await page.getByRole('button', { name: 'Chat with us' }).click();
    await page.getByPlaceholder('Your name').fill('Sam');
    await page.getByPlaceholder('Your phone number').fill('+44 113 496 0000');
    await page.getByRole('button', { name: 'Start chat' }).click();
    await expect.poll(() => page.locator('.bubble.agent').allTextContents(), poll).toEqual(['Hi Sam, how can I help?']);

    llm.fake.chat.enqueue({ tokens: ['We fix', ' boilers', ' every day', ' from 8.'], chunkDelayMs: 30 });
    await page.getByPlaceholder('Type your message').fill('Can you fix my boiler?');
    await page.getByRole('button', { name: 'Send' }).click();
    // The reply grows as it streams: part of it shows before it is complete.
    const last = page.locator('.bubble.agent').last();
    await expect.poll(() => last.textContent(), poll).toMatch(/^We fix boilers(?! every day from 8\.)/);
    await page.locator('.bubble.agent[data-complete="true"]').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await last.textContent()).toBe('We fix boilers every day from 8.');
    // The agent has webCallEnabled: the header offers a call (placing one is tested in web-call.test.ts).
    expect(await page.locator('.call').isVisible()).toBe(true);
    expect(await page.locator('.call').textContent()).toBe('Call');
    fs.mkdirSync(ARTEFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTEFACTS, 'widget-chat.png') });

    const stored = await page.evaluate(`localStorage.getItem(${JSON.stringify(`parley-widget:${widget.agentId}`)})`);
    const roomName = JSON.parse(String(stored)).roomName as string;
    await page.reload();
    const bubbles = page.locator('.bubble');
    await expect
      .poll(() => bubbles.allTextContents(), poll)
      .toEqual(['Hi Sam, how can I help?', 'Can you fix my boiler?', 'We fix boilers every day from 8.']);
    await page.screenshot({ path: path.join(ARTEFACTS, 'widget-chat-resumed.png') });
    const conversations = await t.db
      .sql`select id from call_records where room_name = ${roomName} and call_type = 'chat'`;
    expect(conversations).toHaveLength(1);
    const lines = await t.db.sql`select speaker, text from call_transcripts where call_id = ${conversations[0]!.id}
      order by start_ms, end_ms, id`;
    expect(lines.map((l) => l.text)).toEqual([
      'Hi Sam, how can I help?',
      'Can you fix my boiler?',
      'We fix boilers every day from 8.',
    ]);
    expect(pageErrors).toEqual([]);
    // The chat went over the websocket (once per page load), not the HTTP fallback.
    expect(sockets).toEqual(['/api/v1/widget/chat', '/api/v1/widget/chat']);
    await page.close();
  });

  it('chats over plain HTTP where websockets cannot open', async () => {
    const page = await browser.newPage();
    const posted: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') posted.push(new URL(request.url()).pathname);
    });
    await page.goto(`${shopUrl}?nows`);
    await page.getByRole('button', { name: 'Chat with us' }).click();
    await page.getByPlaceholder('Your name').fill('Lee');
    await page.getByPlaceholder('Your phone number').fill('+44 113 496 0002');
    await page.getByRole('button', { name: 'Start chat' }).click();
    await expect.poll(() => page.locator('.bubble.agent').allTextContents(), poll).toEqual(['Hi Lee, how can I help?']);
    llm.fake.chat.enqueue({ tokens: ['Yes,', ' on Saturdays too.'] });
    await page.getByPlaceholder('Type your message').fill('Open on Saturdays?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.bubble.agent[data-complete="true"]').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.locator('.bubble.agent').last().textContent()).toBe('Yes, on Saturdays too.');
    expect(posted).toContain('/api/v1/widget/chat/messages');
    // Two bootstraps (the panel's metadata, then the conversation) and no more: the refused socket is not taken for
    // a dropped line, which the widget would reconnect after RECONNECT_DELAY_MS (1 s) — so a little longer is watched.
    await page.waitForTimeout(1_200);
    expect(posted.filter((p) => p === '/api/v1/widget/bootstrap')).toHaveLength(2);
    await page.close();
  });

  for (const [how, query] of [
    ['over the websocket', ''],
    ['over HTTP', '?nows'],
  ] as const) {
    it(`ends the conversation when the visitor presses End chat (${how}), and starts the next one afresh`, async () => {
      const page = await browser.newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (error) => pageErrors.push(error.message));
      await page.goto(`${shopUrl}${query}`);
      await page.getByRole('button', { name: 'Chat with us' }).click();
      await page.getByPlaceholder('Your name').fill('Pat');
      await page.getByPlaceholder('Your phone number').fill('+44 113 496 0003');
      await page.getByRole('button', { name: 'Start chat' }).click();
      await expect
        .poll(() => page.locator('.bubble.agent').allTextContents(), poll)
        .toEqual(['Hi Pat, how can I help?']);
      const storageKey = JSON.stringify(`parley-widget:${widget.agentId}`);
      const roomName = JSON.parse(String(await page.evaluate(`localStorage.getItem(${storageKey})`))).roomName;

      await page.getByRole('button', { name: 'End chat' }).click();
      await expect.poll(() => page.locator('.status').textContent(), poll).toBe('Chat ended. Thank you!');
      const [conversation] = await t.db.sql<{ ended_at: Date | null; meta_data: { endReason?: string } }[]>`
        select ended_at, meta_data from call_records where room_name = ${roomName}`;
      expect(conversation!.ended_at).not.toBeNull();
      expect(conversation!.meta_data.endReason).toBe('visitor_closed');
      // Forgotten: the panel asks for the visitor's details again, for a new conversation, and does not reconnect.
      expect(await page.evaluate(`localStorage.getItem(${storageKey})`)).toBeNull();
      await page.getByRole('button', { name: 'Start chat' }).waitFor({ timeout: UI_TIMEOUT_MS });
      expect(await page.getByRole('button', { name: 'End chat' }).isVisible()).toBe(false);
      await page.waitForTimeout(1_200);
      expect(await page.locator('.status').textContent()).toBe('Chat ended. Thank you!');
      expect(pageErrors).toEqual([]);
      await page.close();
    });
  }

  it('tells the visitor to try again later when the organisation cannot pay (402)', async () => {
    const poor = await seedOrganisation(t.db.sql, 'Poor Plumbing');
    await seedWallet(t.db.sql, poor.organisationId, { balanceMinor: 0, hasPaid: true });
    const poorWidget = await createWidgetAgent(t, poor);
    const page = await browser.newPage();
    await page.goto(`${shopUrl}?agent=${poorWidget.agentId}&token=${poorWidget.token}`);
    await page.getByRole('button', { name: 'Chat with us' }).click();
    await page.getByPlaceholder('Your name').fill('Kim');
    await page.getByPlaceholder('Your phone number').fill('+44 113 496 0001');
    await page.getByRole('button', { name: 'Start chat' }).click();
    await page.getByPlaceholder('Type your message').fill('Hello?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.bubble.failed').waitFor({ timeout: UI_TIMEOUT_MS });
    expect(await page.locator('.bubble.failed').textContent()).toBe(
      'The assistant cannot reply right now. Please try again later.',
    );
    expect(await page.getByRole('button', { name: 'Try again' }).isVisible()).toBe(true);
    await page.close();
  });
});
