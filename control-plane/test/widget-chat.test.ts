/**
 * The website widget's API (spec document 2, Widget; docs/architecture.md §15) against a real LLM worker role and
 * the fake OpenAI-compatible server: bootstrap, chat over HTTP and over the websocket (streamed), the conversation
 * stored as a chat call record with its transcript, each reply billed once, and every refusal of the spec.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedOrganisation, seedPhoneNumber, seedWallet, type SeededOrganisation } from './support/seed.ts';
import { createIsolatedBus, startTestLlm, type TestLlm } from './support/workers.ts';
import { createWidgetAgent, type WidgetAgent } from './support/widget.ts';
import { LLM_OPEN_WAIT_MS } from '../src/chat/chat-replies.ts';
import { KbSearchResponder } from '../src/knowledge/kb-search-responder.ts';
import { KnowledgeJob } from '../src/knowledge/knowledge-job.ts';
import { KnowledgeService } from '../src/knowledge/knowledge-service.ts';
import { WEBSITE_MD } from './support/knowledge-content.ts';
import pino from 'pino';

let t: TestApp;
let llm: TestLlm;
let org: SeededOrganisation;
let widget: WidgetAgent;
let baseUrl: string;

beforeAll(async () => {
  const bus = await createIsolatedBus();
  t = await startTestApp({ bus, rateLimits: { widget: 1000, widgetChat: 1000 } });
  llm = await startTestLlm(bus);
  org = await seedOrganisation(t.db.sql);
  await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 500 });
  widget = await createWidgetAgent(t, org);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  await llm?.close();
  await t?.close();
  await t?.bus.close();
});

const bootstrap = (token: string | undefined, body: Record<string, unknown>, remoteAddress?: string) =>
  t.call(token, { method: 'POST', url: '/api/v1/widget/bootstrap', payload: body, remoteAddress });
const send = (chatToken: string, messageId: string, text: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/widget/chat/messages',
    headers: { 'x-chat-token': chatToken },
    payload: { messageId, text },
  });
let rooms = 0;
const visitor = () => ({
  participantName: 'Sam',
  phoneNumber: '+44 113 496 0000',
  roomName: `web-test-${++rooms}-${Date.now()}`,
});

async function openConversation(who = visitor()): Promise<{ token: string; callId: string; roomName: string }> {
  const res = await bootstrap(widget.token, { agentId: widget.agentId, ...who });
  expect(res.statusCode).toBe(200);
  const [call] = await t.db.sql<{ id: string }[]>`select id from call_records where room_name = ${who.roomName}`;
  return { token: res.json().data.metadata.agentToken, callId: call!.id, roomName: who.roomName };
}

const usageOf = (callId: string) =>
  t.db.sql<{ usage_type: string; message_count: number; total_e4: string; wallet_deducted: boolean }[]>`
    select usage_type, message_count, total_e4, wallet_deducted from usage_records where voice_session_id = ${callId}`;
const balance = async () =>
  Number(
    (
      await t.db.sql<{ balance: string }[]>`select balance from ledger_accounts
      where organisation_id = ${org.organisationId} and kind = 'WALLET'`
    )[0]!.balance,
  );

describe('POST /widget/bootstrap', () => {
  it('answers the metadata with variables merged over the agent defaults, and no session without roomName', async () => {
    const res = await bootstrap(widget.token, {
      agentId: widget.agentId,
      participantName: 'Sam',
      customVariables: { city: 'York', page: '/pricing' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.json().data.metadata).toMatchObject({
      orgId: org.organisationId,
      agentId: widget.agentId,
      agentName: 'Web helper',
      agentIdentity: 'You are Ava, the assistant of Acme Plumbing.',
      greetingMessage: 'Hi Sam, how can I help?',
      callType: 'chat',
      callDirection: 'INBOUND',
      channel: 'widget',
      participantName: 'Sam',
      phone_number: null,
      customVariables: { shop: 'Acme Plumbing', city: 'York', page: '/pricing', participantName: 'Sam' },
      functionTools: [],
      roomName: null,
      agentToken: null,
      webCallEnabled: false,
    });
  });

  it('opens a chat conversation by roomName, greets in its transcript, and resumes it on the next bootstrap', async () => {
    const who = visitor();
    const first = await bootstrap(widget.token, { agentId: widget.agentId, ...who });
    expect(first.statusCode).toBe(200);
    const { agentToken, roomName, customVariables } = first.json().data.metadata;
    expect(agentToken).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(roomName).toBe(who.roomName);
    expect(customVariables).toMatchObject({ participantName: 'Sam', phoneNumber: who.phoneNumber });
    const [call] = await t.db.sql`select * from call_records where room_name = ${who.roomName}`;
    expect(call).toMatchObject({
      call_type: 'chat',
      source: 'widget',
      call_direction: 'INBOUND',
      call_status: null,
      agent_id: widget.agentId,
      participant_name: 'Sam',
      // Stored as a number a callback can dial.
      phone_number: '+441134960000',
    });
    const again = await bootstrap(widget.token, { agentId: widget.agentId, ...who });
    expect(again.statusCode).toBe(200);
    expect(await t.db.sql`select id from call_records where room_name = ${who.roomName}`).toHaveLength(1);
    const lines = await t.db.sql`select speaker, text from call_transcripts where call_id = ${call!.id}`;
    expect(lines).toEqual([{ speaker: 'assistant', text: 'Hi Sam, how can I help?' }]);
  });

  it('requires participantName and phoneNumber with roomName, naming the field', async () => {
    const noName = await bootstrap(widget.token, {
      agentId: widget.agentId,
      roomName: 'web-x',
      phoneNumber: '+4411349600',
    });
    expect(noName.statusCode).toBe(400);
    expect(noName.json().errors).toEqual([{ field: 'participantName', message: 'is required when roomName is sent' }]);
    const noPhone = await bootstrap(widget.token, {
      agentId: widget.agentId,
      roomName: 'web-x',
      participantName: 'Sam',
    });
    expect(noPhone.statusCode).toBe(400);
    expect(noPhone.json().errors[0].field).toBe('phoneNumber');
    const noAgent = await bootstrap(widget.token, {});
    expect(noAgent.statusCode).toBe(400);
    expect(noAgent.json().message).toContain('agentId');
  });

  it('opens only the agent the token is bound to, and only on the widget routes', async () => {
    const other = await createWidgetAgent(t, org, { name: 'Other helper' });
    const foreign = await bootstrap(widget.token, { agentId: other.agentId });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().message).toContain('different agent');
    const otherOrg = await seedOrganisation(t.db.sql, 'Globex');
    const theirs = await createWidgetAgent(t, otherOrg);
    expect((await bootstrap(widget.token, { agentId: theirs.agentId })).statusCode).toBe(403);
    // A management key cannot use the widget routes, nor a widget token the management routes.
    expect((await bootstrap(org.key, { agentId: widget.agentId })).statusCode).toBe(403);
    const management = await t.call(widget.token, { method: 'GET', url: `/api/v1/voice/agents/${widget.agentId}` });
    expect(management.statusCode).toBe(403);
    expect((await bootstrap(undefined, { agentId: widget.agentId })).statusCode).toBe(401);
    expect((await bootstrap('parley_prod_nothing_0000', { agentId: widget.agentId })).statusCode).toBe(401);
  });

  it('refuses a roomName that names another conversation (409)', async () => {
    const other = await createWidgetAgent(t, org, { name: 'Second helper' });
    const who = visitor();
    expect((await bootstrap(other.token, { agentId: other.agentId, ...who })).statusCode).toBe(200);
    const taken = await bootstrap(widget.token, { agentId: widget.agentId, ...who });
    expect(taken.statusCode).toBe(409);
  });

  it('answers the preflight of a page on another origin', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/v1/widget/bootstrap',
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-headers']).toContain('authorization');
  });
});

describe('chat over HTTP', () => {
  it('answers through the LLM worker with the chat prompt and the conversation, stores both lines, bills once', async () => {
    const conversation = await openConversation();
    const before = await balance();
    llm.fake.chat.enqueue({ tokens: ['We open', ' at 9', ' tomorrow.'] });
    const asked = llm.fake.chat.requests.length;
    const res = await send(conversation.token, 'm1', 'When do you open?');
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({ messageId: 'm1', reply: 'We open at 9 tomorrow.', replayed: false });
    const request = llm.fake.chat.requests[asked]!.body as { messages: { role: string; content: string }[] };
    expect(request.messages[0]!.role).toBe('system');
    expect(request.messages[0]!.content).toContain('You are Ava, the assistant of Acme Plumbing.');
    expect(request.messages[0]!.content).toContain('## How to write');
    expect(request.messages[0]!.content).toContain('shop: Acme Plumbing');
    expect(request.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Hi Sam, how can I help?' },
      { role: 'user', content: 'When do you open?' },
    ]);
    const lines = await t.db.sql`select speaker, text from call_transcripts where call_id = ${conversation.callId}
      order by start_ms, end_ms, id`;
    expect(lines.map((l) => [l.speaker, l.text])).toEqual([
      ['assistant', 'Hi Sam, how can I help?'],
      ['user', 'When do you open?'],
      ['assistant', 'We open at 9 tomorrow.'],
    ]);
    // The rate card's STARTER USD ai_web_chat_reply line (0.5 cent) rounded up to a whole cent of the wallet.
    expect(await usageOf(conversation.callId)).toEqual([
      { usage_type: 'CHATBOT_MESSAGE', message_count: 1, total_e4: '10000', wallet_deducted: true },
    ]);
    expect(await balance()).toBe(before - 1);

    // A retry of the same message gets the same reply: the model is not asked, nothing more is billed.
    const retry = await send(conversation.token, 'm1', 'When do you open?');
    expect(retry.json().data).toEqual({ messageId: 'm1', reply: 'We open at 9 tomorrow.', replayed: true });
    expect(llm.fake.chat.requests).toHaveLength(asked + 1);
    expect(await usageOf(conversation.callId)).toHaveLength(1);
    expect(await balance()).toBe(before - 1);
    const reused = await send(conversation.token, 'm1', 'Something else');
    expect(reused.statusCode).toBe(409);

    // The history the widget reloads.
    const history = await t.app.inject({
      method: 'GET',
      url: '/api/v1/widget/chat/messages',
      headers: { 'x-chat-token': conversation.token },
    });
    expect(history.json().data.messages.map((m: { role: string }) => m.role)).toEqual(['agent', 'visitor', 'agent']);
  });

  it('answers and bills once when the same message arrives twice at once (409 for the second while the first runs)', async () => {
    const conversation = await openConversation();
    llm.fake.chat.enqueue({ tokens: ['One', ' answer.'], headerDelayMs: 300 });
    const asked = llm.fake.chat.requests.length;
    const first = send(conversation.token, 'dup', 'Are you there?');
    // The second arrives once the first holds the message (its claim is in chat_replies).
    await expect
      .poll(
        async () =>
          (await t.db.sql`select 1 from chat_replies where message_id = 'dup' and call_id = ${conversation.callId}`)
            .length,
      )
      .toBe(1);
    const second = await send(conversation.token, 'dup', 'Are you there?');
    expect(second.statusCode).toBe(409);
    expect(second.json().message).toContain('still being answered');
    expect((await first).json().data).toEqual({ messageId: 'dup', reply: 'One answer.', replayed: false });
    const third = await send(conversation.token, 'dup', 'Are you there?');
    expect(third.json().data.replayed).toBe(true);
    expect(llm.fake.chat.requests).toHaveLength(asked + 1);
    expect(await usageOf(conversation.callId)).toHaveLength(1);
  });

  it("runs the agent's webhook tools between model rounds, with their sealed bearer token opened", async () => {
    const calls: { auth?: string; body: string }[] = [];
    const tools = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        calls.push({ auth: req.headers.authorization, body });
        res.setHeader('content-type', 'application/json');
        res.end('{"monday":"8 to 6"}');
      });
    });
    await new Promise<void>((resolve) => tools.listen(0, '127.0.0.1', resolve));
    try {
      const port = (tools.address() as AddressInfo).port;
      const toolAgent = await createWidgetAgent(t, org, {
        name: 'Hours helper',
        functionTools: {
          opening_hours: {
            description: 'Opening hours of a day',
            parameters: { type: 'object', properties: { day: { type: 'string' } } },
            url: `http://127.0.0.1:${port}/hours`,
            method: 'POST',
            bearerToken: 'sk-hours-secret',
          },
        },
      });
      const who = visitor();
      const boot = await bootstrap(toolAgent.token, { agentId: toolAgent.agentId, ...who });
      expect(boot.json().data.metadata.functionTools).toEqual([
        { name: 'opening_hours', description: 'Opening hours of a day' },
      ]);
      expect(boot.body).not.toContain('sk-hours-secret');
      expect(boot.body).not.toContain(`${port}`);
      llm.fake.chat.enqueue(
        { toolCalls: [{ id: 'call-1', name: 'opening_hours', arguments: '{"day":"monday"}' }] },
        { tokens: ['On Monday', ' we open 8 to 6.'] },
      );
      const asked = llm.fake.chat.requests.length;
      const res = await send(boot.json().data.metadata.agentToken, 'h1', 'Are you open on Monday?');
      expect(res.json().data.reply).toBe('On Monday we open 8 to 6.');
      expect(calls).toEqual([{ auth: 'Bearer sk-hours-secret', body: '{"day":"monday"}' }]);
      const second = llm.fake.chat.requests[asked + 1]!.body as {
        messages: Record<string, unknown>[];
        tools: unknown[];
      };
      expect(second.messages.at(-1)).toMatchObject({
        role: 'tool',
        tool_call_id: 'call-1',
        content: '{"monday":"8 to 6"}',
      });
      expect(second.tools).toHaveLength(1);
    } finally {
      await new Promise<void>((resolve) => tools.close(() => resolve()));
    }
  });

  it('answers 503 saying what to run when no LLM worker takes the reply, and lets the message be retried', async () => {
    const lonelyBus = await createIsolatedBus();
    const lonely = await startTestApp({
      bus: lonelyBus,
      db: t.db,
      secrets: t.secrets,
      rateLimits: { widget: 1000, widgetChat: 1000 },
    });
    try {
      const who = visitor();
      const boot = await lonely.call(widget.token, {
        method: 'POST',
        url: '/api/v1/widget/bootstrap',
        payload: { agentId: widget.agentId, ...who },
      });
      const token = boot.json().data.metadata.agentToken;
      const message = {
        method: 'POST' as const,
        url: '/api/v1/widget/chat/messages',
        headers: { 'x-chat-token': token },
      };
      const refused = await lonely.app.inject({ ...message, payload: { messageId: 'n1', text: 'Anyone there?' } });
      expect(refused.statusCode).toBe(503);
      expect(refused.json().message).toContain('run the llm-worker role');
      // The failed message is answered when sent again where a model runs, and billed then.
      const answered = await send(token, 'n1', 'Anyone there?');
      expect(answered.statusCode, answered.body).toBe(200);
      expect(answered.json().data.replayed).toBe(false);
      const [call] = await t.db.sql<{ id: string }[]>`select id from call_records where room_name = ${who.roomName}`;
      expect(await usageOf(call!.id)).toHaveLength(1);

      // Over the websocket: the socket's wait for a worker is the message's; its 503 comes without a second wait.
      await lonely.app.listen({ port: 0, host: '127.0.0.1' });
      const port = (lonely.app.server.address() as AddressInfo).port;
      const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/widget/chat?token=${encodeURIComponent(token)}`);
      const error = new Promise<Record<string, unknown>>((resolve) =>
        ws.on('message', (data) => {
          const message = JSON.parse(String(data));
          if (message.type === 'error') resolve(message);
        }),
      );
      await new Promise((resolve) => ws.once('open', resolve));
      ws.send(JSON.stringify({ type: 'message', messageId: 'n2', text: 'Still nobody?' }));
      const started = performance.now();
      expect(await error).toMatchObject({ messageId: 'n2', status: 503, code: 'unavailable' });
      expect(performance.now() - started).toBeLessThan(LLM_OPEN_WAIT_MS + 1_000);
      ws.close();
    } finally {
      await lonely.close();
      await lonelyBus.close();
    }
  });

  it("searches the agent's knowledge base as a call does (knowledge_search over v1.kb.search)", async () => {
    const responder = new KbSearchResponder(t.db.sql, t.bus, () => {}).listen();
    try {
      const document = await new KnowledgeService(t.db.sql).create(org.organisationId, {
        name: 'Café website',
        description: undefined,
        text: WEBSITE_MD,
        language: 'en',
        files: [],
      });
      await new KnowledgeJob(t.db.sql, pino({ level: 'silent' })).runOnce();
      const informed = await createWidgetAgent(t, org, {
        name: 'Informed helper',
        customVariables: { knowledge_base_ids: [document.id] },
      });
      const who = { participantName: 'Kim', phoneNumber: '+44 113 496 0001', roomName: `web-kb-${Date.now()}` };
      const boot = await bootstrap(informed.token, { agentId: informed.agentId, ...who });
      llm.fake.chat.enqueue(
        {
          toolCalls: [
            { id: 'kb-1', name: 'knowledge_search', arguments: JSON.stringify({ query: 'open on Sundays' }) },
          ],
        },
        { tokens: ['We open at ten on Sundays.'] },
      );
      const asked = llm.fake.chat.requests.length;
      const res = await send(boot.json().data.metadata.agentToken, 'k1', 'What time do you open on Sundays?');
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.reply).toBe('We open at ten on Sundays.');
      const offered = (llm.fake.chat.requests[asked]!.body as { tools: { function: { name: string } }[] }).tools;
      expect(offered.map((tool) => tool.function.name)).toContain('knowledge_search');
      const toolAnswer = (llm.fake.chat.requests[asked + 1]!.body as { messages: { content: string }[] }).messages.at(
        -1,
      );
      expect(toolAnswer!.content).toContain('Café website');
      expect(toolAnswer!.content).toMatch(/Sunday/);
    } finally {
      responder.close();
    }
  });

  it('arranges a callback through the callback agent when the visitor asks, as POST /voice/callback would', async () => {
    await seedPhoneNumber(t.db.sql, org.organisationId, { provider: 'carrier-b', phoneNumber: '+14155550100' });
    const voice = await t.call(org.key, {
      method: 'POST',
      url: '/api/v1/voice/agents',
      payload: {
        name: 'Caller',
        agentIdentity: 'You call visitors back.',
        agentTask: 'Help them.',
        greetingMessage: 'Hello, Acme here.',
        callingNumber: '+14155550100',
      },
    });
    expect(voice.statusCode, voice.body).toBe(201);
    const withCallbacks = await createWidgetAgent(t, org, {
      name: 'Callback helper',
      callbackAgentId: voice.json().data.id,
    });
    const who = { participantName: 'Jo', phoneNumber: '+1 (415) 555-0199', roomName: `web-callback-${Date.now()}` };
    const boot = await bootstrap(withCallbacks.token, { agentId: withCallbacks.agentId, ...who });
    const when = new Date(Date.now() + 86_400_000).toISOString();
    llm.fake.chat.enqueue(
      {
        toolCalls: [
          { id: 'cb-1', name: 'request_callback', arguments: JSON.stringify({ when, note: 'a new boiler' }) },
        ],
      },
      { tokens: ['A colleague will call you tomorrow.'] },
    );
    const asked = llm.fake.chat.requests.length;
    const res = await send(boot.json().data.metadata.agentToken, 'c1', 'Can someone call me tomorrow?');
    expect(res.json().data.reply).toBe('A colleague will call you tomorrow.');
    const offered = (llm.fake.chat.requests[asked]!.body as { tools: { function: { name: string } }[] }).tools;
    expect(offered.map((tool) => tool.function.name)).toEqual(['request_callback']);
    const toolAnswer = (llm.fake.chat.requests[asked + 1]!.body as { messages: { content: string }[] }).messages.at(-1);
    expect(toolAnswer!.content).toContain('Callback scheduled for');
    const [conversation] = await t.db.sql<
      { id: string }[]
    >`select id from call_records where room_name = ${who.roomName}`;
    const [callback] = await t.db
      .sql`select * from call_records where meta_data ->> 'callbackOf' = ${conversation!.id}`;
    expect(callback).toMatchObject({
      call_type: 'sip',
      call_status: 'SCHEDULED',
      phone_number: '+14155550199',
      agent_id: voice.json().data.id,
      calling_number: '+14155550100',
      created_by_id: org.ownerId,
    });
    expect(callback!.scheduled_time.toISOString()).toBe(when);
    expect(JSON.parse(callback!.custom_variables.callbackMetaData)).toEqual({ note: 'a new boiler' });
  });

  it('refuses a reply the organisation cannot pay for (402) before asking the model, and bills nothing', async () => {
    const poor = await seedOrganisation(t.db.sql, 'Poor Co');
    await seedWallet(t.db.sql, poor.organisationId, { balanceMinor: 0, hasPaid: true });
    const poorWidget = await createWidgetAgent(t, poor);
    const who = visitor();
    const boot = await bootstrap(poorWidget.token, { agentId: poorWidget.agentId, ...who });
    const token = boot.json().data.metadata.agentToken;
    const asked = llm.fake.chat.requests.length;
    const res = await send(token, 'm1', 'Hello?');
    expect(res.statusCode).toBe(402);
    expect(res.json().message).toBe('This agent cannot reply right now: please try again later');
    expect(llm.fake.chat.requests).toHaveLength(asked);
    const [call] = await t.db.sql<{ id: string }[]>`select id from call_records where room_name = ${who.roomName}`;
    expect(await usageOf(call!.id)).toEqual([]);
    // Once the wallet is topped up, the same message is answered (and billed) after all.
    await seedWallet(t.db.sql, poor.organisationId, { balanceMinor: 500, hasPaid: true });
    llm.fake.chat.enqueue({ tokens: ['Hello again.'] });
    const retried = await send(token, 'm1', 'Hello?');
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json().data).toMatchObject({ reply: 'Hello again.', replayed: false });
    expect(await usageOf(call!.id)).toHaveLength(1);
  });

  it('refuses a missing, forged or expired session token (401) and bad messages (400 naming the field)', async () => {
    const conversation = await openConversation();
    expect((await send('', 'm1', 'hi')).statusCode).toBe(401);
    expect((await send(`${conversation.token}x`, 'm1', 'hi')).statusCode).toBe(401);
    const [body] = conversation.token.split('.');
    const claims = JSON.parse(Buffer.from(body!, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, expiresAt: Date.now() + 1e9 })).toString('base64url');
    expect((await send(`${forged}.${conversation.token.split('.').slice(1).join('.')}`, 'm1', 'hi')).statusCode).toBe(
      401,
    );
    const bad = await send(conversation.token, 'not ok!', 'hi');
    expect(bad.statusCode, bad.body).toBe(400);
    expect(bad.json().errors[0].field).toBe('messageId');
    const long = await send(conversation.token, 'm2', 'x'.repeat(2001));
    expect(long.statusCode).toBe(400);
    expect(long.json().errors[0].field).toBe('text');
  });
});

describe('chat over the websocket', () => {
  const connect = (token: string) =>
    new WebSocket(`${baseUrl.replace('http', 'ws')}/api/v1/widget/chat?token=${encodeURIComponent(token)}`);

  function messages(ws: WebSocket): {
    next(type: string): Promise<Record<string, unknown>>;
    all: Record<string, unknown>[];
  } {
    const all: Record<string, unknown>[] = [];
    const waiters: { type: string; resolve(m: Record<string, unknown>): void }[] = [];
    let read = 0;
    ws.on('message', (data) => {
      all.push(JSON.parse(String(data)));
      flush();
    });
    const flush = () => {
      for (const waiter of [...waiters]) {
        const index = all.findIndex((m, i) => i >= read && m.type === waiter.type);
        if (index >= 0) {
          read = index + 1;
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(all[index]!);
        }
      }
    };
    return {
      all,
      next: (type) =>
        new Promise((resolve) => {
          waiters.push({ type, resolve });
          flush();
        }),
    };
  }

  it('sends the history, streams the reply token by token, then the whole reply, and stores it', async () => {
    const conversation = await openConversation();
    const ws = connect(conversation.token);
    const inbox = messages(ws);
    const history = await inbox.next('history');
    expect(history).toMatchObject({
      roomName: conversation.roomName,
      messages: [{ role: 'agent', text: 'Hi Sam, how can I help?' }],
    });
    llm.fake.chat.enqueue({ tokens: ['Yes,', ' we', ' fix', ' boilers.'], chunkDelayMs: 5 });
    ws.send(JSON.stringify({ type: 'message', messageId: 'w1', text: 'Do you fix boilers?' }));
    const reply = await inbox.next('reply');
    expect(reply).toEqual({ type: 'reply', messageId: 'w1', reply: 'Yes, we fix boilers.', replayed: false });
    const tokens = inbox.all.filter((m) => m.type === 'token').map((m) => m.text);
    expect(tokens).toEqual(['Yes,', ' we', ' fix', ' boilers.']);
    const lines = await t.db.sql`select speaker, text from call_transcripts where call_id = ${conversation.callId}
      order by start_ms, end_ms, id`;
    expect(lines.at(-1)).toEqual({ speaker: 'assistant', text: 'Yes, we fix boilers.' });
    expect(await usageOf(conversation.callId)).toHaveLength(1);

    ws.send('not json');
    expect(await inbox.next('error')).toMatchObject({ status: 400, code: 'validation_failed' });
    ws.close();
  });

  it('refuses the upgrade with 401 for a bad token', async () => {
    const ws = connect('forged.token.value');
    const status = await new Promise<number>((resolve) =>
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!)),
    );
    expect(status).toBe(401);
  });
});

describe('POST /widget/voice-session', () => {
  const request = (token: string, body: Record<string, unknown>, remoteAddress: string) =>
    t.call(token, { method: 'POST', url: '/api/v1/widget/voice-session', payload: body, remoteAddress });
  /** As if the requests so far were made long enough ago to be out of the 5 s duplicate window (not the 24 h caps). */
  const age = () => t.db.sql`update widget_call_requests set created_at = created_at - interval '10 seconds'`;

  it('refuses an agent without web calling (400) and another agent (403)', async () => {
    const res = await request(widget.token, { agentId: widget.agentId }, '10.0.0.1');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toContain('Web calling is not enabled');
    const other = await createWidgetAgent(t, org, { name: 'Callable', webCallEnabled: true });
    expect((await request(widget.token, { agentId: other.agentId }, '10.0.0.1')).statusCode).toBe(403);
  });

  it('runs the spec checks: 402, then 409 within seconds, 429 at 3 per number; a request passing them is placed (503: no engine here)', async () => {
    const callable = await createWidgetAgent(t, org, { name: 'Callable 2', webCallEnabled: true });
    const body = { agentId: callable.agentId, participantNumber: '+44 7700 900123' };
    const first = await request(callable.token, body, '10.0.1.1');
    expect(first.statusCode).toBe(503);
    expect(first.json().message).toContain('real-time media service is unavailable');
    expect((await request(callable.token, body, '10.0.1.1')).statusCode).toBe(409);
    await age();
    expect((await request(callable.token, body, '10.0.1.2')).statusCode).toBe(503);
    await age();
    expect((await request(callable.token, body, '10.0.1.3')).statusCode).toBe(503);
    await age();
    const capped = await request(callable.token, { ...body, participantNumber: '447700900123' }, '10.0.1.4');
    expect(capped.statusCode).toBe(429);
    expect(capped.json().message).toContain('3 calls per phone number');
    // Another number is not capped.
    expect(
      (await request(callable.token, { ...body, participantNumber: '+44 7700 900999' }, '10.0.1.4')).statusCode,
    ).toBe(503);
    // The cap is per organisation: another organisation's agent may still be asked to call the same number.
    const elsewhere = await seedOrganisation(t.db.sql, 'Elsewhere');
    await seedWallet(t.db.sql, elsewhere.organisationId, { balanceMinor: 500 });
    const theirs = await createWidgetAgent(t, elsewhere, { webCallEnabled: true });
    const theirsAnswer = await request(theirs.token, { ...body, agentId: theirs.agentId }, '10.0.1.5');
    expect(theirsAnswer.statusCode).toBe(503);

    const poor = await seedOrganisation(t.db.sql, 'Empty wallet');
    await seedWallet(t.db.sql, poor.organisationId, { balanceMinor: 50, hasPaid: true });
    const poorAgent = await createWidgetAgent(t, poor, { webCallEnabled: true });
    const refused = await request(poorAgent.token, { agentId: poorAgent.agentId }, '10.0.2.1');
    expect(refused.statusCode).toBe(402);
  });

  it('caps requests without a number at 10 per IP address a day', async () => {
    const callable = await createWidgetAgent(t, org, { name: 'Callable 3', webCallEnabled: true });
    for (let i = 0; i < 10; i += 1) {
      expect((await request(callable.token, { agentId: callable.agentId }, '10.0.3.1')).statusCode).toBe(503);
      await age();
    }
    const capped = await request(callable.token, { agentId: callable.agentId }, '10.0.3.1');
    expect(capped.statusCode).toBe(429);
    expect(capped.json().message).toContain('10 calls per day from one address');
    expect((await request(callable.token, { agentId: callable.agentId }, '10.0.3.2')).statusCode).toBe(503);
  });
});
