/**
 * How a chat conversation ends and what follows (docs/architecture.md §15): the visitor closes it (websocket `end`,
 * or POST /widget/chat/end), or it sits idle past CHAT_IDLE_END_MS and the idle sweep ends it; either way it gets a
 * call's post-call analysis — overview and, for an agent that tracks results, its agent result — from the real
 * post-call job, against a real LLM worker role and the fake OpenAI server. A visitor coming back reopens it.
 */
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CallAnalyst } from '../src/calls/analysis/call-analyst.ts';
import { PostCallAnalysisJob } from '../src/calls/analysis/post-call-job.ts';
import { CHAT_IDLE_END_MS, ChatIdleSweep } from '../src/chat/chat-idle-sweep.ts';
import { newId } from '../src/db/ids.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedOrganisation, seedWallet, type SeededOrganisation } from './support/seed.ts';
import { createWidgetAgent, type WidgetAgent } from './support/widget.ts';
import { createIsolatedBus, startTestLlm, type TestLlm } from './support/workers.ts';

const RESULTS_CONFIG = {
  outcomes: [
    { key: 'booked', label: 'Visit booked', description: 'A plumber visit was arranged' },
    { key: 'just_asking', label: 'Just asking' },
  ],
  fields: [{ key: 'visit_day', label: 'Visit day', type: 'text' }],
};
const OVERVIEW = {
  score: 9,
  classification: 'Relevant',
  user_sentiment: 'positive',
  summary: ['Booked a boiler repair for Tuesday'],
  result: {
    code: 'booked',
    quote: 'Tuesday morning is fine',
    quote_en: 'Tuesday morning is fine',
    callback_at: null,
    callback_time: null,
  },
};
const AGENT_RESULT = { outcome: 'booked', captured: { visit_day: 'Tuesday' } };
const analysisAnswer = {
  toolCalls: [
    {
      id: 'call_analysis',
      name: 'submit_call_analysis',
      arguments: JSON.stringify({ overview: OVERVIEW, agent_result: AGENT_RESULT }),
    },
  ],
};

let t: TestApp;
let llm: TestLlm;
let org: SeededOrganisation;
let widget: WidgetAgent;
let port: number;
const silent = pino({ level: 'silent' });

beforeAll(async () => {
  const bus = await createIsolatedBus();
  t = await startTestApp({ bus, rateLimits: { widget: 1000, widgetChat: 1000 } });
  llm = await startTestLlm(bus);
  org = await seedOrganisation(t.db.sql, 'Chat endings');
  await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 500 });
  widget = await createWidgetAgent(t, org, { resultsConfig: RESULTS_CONFIG });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  port = (t.app.server.address() as AddressInfo).port;
}, 60_000);
afterAll(async () => {
  await llm?.close();
  await t?.close();
  await t?.bus.close();
});

let rooms = 0;
async function openConversation(): Promise<{ token: string; callId: string }> {
  const roomName = `chat-end-${++rooms}-${Date.now()}`;
  const res = await t.call(widget.token, {
    method: 'POST',
    url: '/api/v1/widget/bootstrap',
    payload: { agentId: widget.agentId, participantName: 'Kim', phoneNumber: '+44 113 496 0001', roomName },
  });
  expect(res.statusCode, res.body).toBe(200);
  const [call] = await t.db.sql<{ id: string }[]>`select id from call_records where room_name = ${roomName}`;
  return { token: res.json().data.metadata.agentToken, callId: call!.id };
}

const send = (token: string, messageId: string, text: string) =>
  t.app.inject({
    method: 'POST',
    url: '/api/v1/widget/chat/messages',
    headers: { 'x-chat-token': token },
    payload: { messageId, text },
  });
const close = (token: string) =>
  t.app.inject({ method: 'POST', url: '/api/v1/widget/chat/end', headers: { 'x-chat-token': token } });
const conversation = async (id: string) =>
  (
    await t.db.sql<
      {
        ended_at: Date | null;
        updated_at: Date;
        call_duration: number | null;
        call_status: string | null;
        analysis_status: string | null;
        meta_data: Record<string, unknown>;
      }[]
    >`select ended_at, updated_at, call_duration, call_status, analysis_status, meta_data
        from call_records where id = ${id}`
  )[0]!;
const analysisJob = async (id: string) =>
  (
    await t.db.sql<{ status: string; attempts: number }[]>`
      select status, attempts from call_analysis_jobs where call_id = ${id}`
  )[0];
const postCallJob = () =>
  new PostCallAnalysisJob(t.db.sql, new CallAnalyst(t.bus), silent, { languageModel: true, retryBaseSeconds: 0 });

describe('closing a chat conversation', () => {
  it('ends it when the visitor closes the websocket conversation, and analyses it like a call', async () => {
    const { token, callId } = await openConversation();
    llm.fake.chat.enqueue({ tokens: ['Tuesday ', 'morning ', 'works: ', 'booked.'] });
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/v1/widget/chat?token=${encodeURIComponent(token)}`);
    const received: Record<string, unknown>[] = [];
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.on('message', (data) => received.push(JSON.parse(String(data))));
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(JSON.stringify({ type: 'message', messageId: 'm1', text: 'My boiler broke. Tuesday morning is fine' }));
    // Sent at once: the end waits for the reply asked for before it.
    ws.send(JSON.stringify({ type: 'end' }));
    expect(await closed).toBe(1000);
    const types = received.map((m) => m.type);
    expect(types.indexOf('reply')).toBeGreaterThan(-1);
    expect(types.indexOf('ended')).toBeGreaterThan(types.indexOf('reply'));
    const ended = received.find((m) => m.type === 'ended')!;

    const row = await conversation(callId);
    expect(row.ended_at?.toISOString()).toBe(ended.endedAt);
    expect(row).toMatchObject({ call_status: null, analysis_status: 'pending' });
    expect(row.meta_data.endReason).toBe('visitor_closed');
    expect(row.call_duration).toBeGreaterThanOrEqual(0);
    expect(await analysisJob(callId)).toMatchObject({ status: 'pending', attempts: 0 });

    const asked = llm.fake.chat.requests.length;
    llm.fake.chat.enqueue(analysisAnswer);
    expect(await postCallJob().runOnce()).toEqual(new Map([[callId, 'done']]));
    const prompt = (llm.fake.chat.requests[asked]!.body as { messages: { content: string }[] }).messages
      .map((m) => m.content)
      .join('\n');
    // The conversation's own lines were analysed, with the agent's results to track.
    expect(prompt).toContain('My boiler broke. Tuesday morning is fine');
    expect(prompt).toContain('Tuesday morning works: booked.');
    expect(prompt).toContain('- booked: Visit booked');
    const record = (await t.call(org.key, { method: 'GET', url: `/api/v1/voice-sessions/${callId}` })).json().data;
    expect(record).toMatchObject({
      callType: 'chat',
      analysisStatus: 'done',
      overview: { score: 9, summary: ['Booked a boiler repair for Tuesday'], result: { code: 'booked' } },
      agentResult: {
        outcomeKey: 'booked',
        outcomeLabel: 'Visit booked',
        captured: { visit_day: 'Tuesday' },
        resultSource: 'analysis',
      },
    });
  });

  it('closes over HTTP once, and a visitor who comes back reopens it, to be ended and analysed again', async () => {
    const { token, callId } = await openConversation();
    llm.fake.chat.enqueue({ tokens: ['Hello Kim.'] });
    expect((await send(token, 'a1', 'Hi there')).statusCode).toBe(200);
    const first = await close(token);
    expect(first.statusCode, first.body).toBe(200);
    const endedAt = first.json().data.endedAt;
    expect(first.json().data).toMatchObject({ roomName: expect.stringMatching(/^chat-end-/), endedAt });
    // Closing again changes nothing.
    expect((await close(token)).json().data.endedAt).toBe(endedAt);
    expect((await conversation(callId)).ended_at?.toISOString()).toBe(endedAt);

    llm.fake.chat.enqueue(analysisAnswer);
    expect(await postCallJob().runOnce()).toEqual(new Map([[callId, 'done']]));
    expect(await analysisJob(callId)).toMatchObject({ status: 'done' });

    // The visitor comes back: the conversation is open again, and its analysis waits for its next end.
    llm.fake.chat.enqueue({ tokens: ['Welcome back.'] });
    const again = await send(token, 'a2', 'One more thing: Tuesday morning is fine');
    expect(again.statusCode, again.body).toBe(200);
    const reopened = await conversation(callId);
    expect(reopened).toMatchObject({ ended_at: null, call_duration: null });
    expect(reopened.meta_data.endReason).toBeUndefined();
    expect((await postCallJob().runOnce()).size).toBe(0);

    expect((await close(token)).statusCode).toBe(200);
    expect(await analysisJob(callId)).toMatchObject({ status: 'pending', attempts: 0 });
    const asked = llm.fake.chat.requests.length;
    llm.fake.chat.enqueue(analysisAnswer);
    expect(await postCallJob().runOnce()).toEqual(new Map([[callId, 'done']]));
    const prompt = (llm.fake.chat.requests[asked]!.body as { messages: { content: string }[] }).messages
      .map((m) => m.content)
      .join('\n');
    expect(prompt).toContain('One more thing: Tuesday morning is fine');
  });

  it('refuses a close without a valid session token (401)', async () => {
    const res = await close('not-a-token');
    expect(res.statusCode).toBe(401);
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/widget/chat/end' })).statusCode).toBe(401);
  });
});

describe('the idle sweep', () => {
  it(`ends conversations quiet for ${CHAT_IDLE_END_MS / 60_000} minutes at their last message, and no others`, async () => {
    const quiet = await openConversation();
    const busy = await openConversation();
    const fresh = await openConversation();
    const lastMessageAt = new Date(Date.now() - CHAT_IDLE_END_MS - 60_000);
    await t.db
      .sql`update call_records set updated_at = ${lastMessageAt}, created_at = ${new Date(lastMessageAt.getTime() - 120_000)}
                    where id in ${t.db.sql([quiet.callId, busy.callId])}`;
    // A reply being written right now keeps its conversation open, however quiet it looked.
    await t.db.sql`insert into chat_replies (id, organisation_id, call_id, message_id, visitor_text, claimed_until)
      values (${newId()}, ${org.organisationId}, ${busy.callId}, 'late', 'Are you there?', now() + interval '1 minute')`;

    const sweep = new ChatIdleSweep(t.db.sql);
    expect(await sweep.runOnce()).toEqual([quiet.callId]);
    const ended = await conversation(quiet.callId);
    expect(ended.ended_at?.getTime()).toBe(lastMessageAt.getTime());
    expect(ended.call_duration).toBe(120_000);
    expect(ended.meta_data.endReason).toBe('idle');
    expect(await analysisJob(quiet.callId)).toMatchObject({ status: 'pending' });
    expect((await conversation(busy.callId)).ended_at).toBeNull();
    expect((await conversation(fresh.callId)).ended_at).toBeNull();
    expect(await analysisJob(fresh.callId)).toBeUndefined();
    // Ended once: the next pass finds nothing.
    expect(await sweep.runOnce()).toEqual([]);

    // Nothing the visitor said: analysed without asking the model.
    const asked = llm.fake.chat.requests.length;
    expect(await postCallJob().runOnce()).toEqual(new Map([[quiet.callId, 'done']]));
    expect(llm.fake.chat.requests.length).toBe(asked);
  });
});
