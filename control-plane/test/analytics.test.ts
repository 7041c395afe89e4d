/** /analytics: the detailed report (made once; a failure is final) and a fresh overview, through the fake LLM. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/db/ids.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedAgent, seedCall, seedOrganisation, updateAgentColumns, type SeededOrganisation } from './support/seed.ts';
import { createIsolatedBus, startTestLlm, type TestLlm } from './support/workers.ts';

let t: TestApp;
let llm: TestLlm;
let org: SeededOrganisation;
let agent: string;

const REPORT = {
  call_classification: { primary_type: 'sales', subtype: 'demo booking', confidence: 0.9 },
  dynamic_metrics: [{ name: 'Interest', value: 8, max: 10, indicator: 'good' }],
  prompt_adherence: {
    overall_score: 85,
    followed: ['Introduced the product'],
    ignored: ['Did not confirm the email'],
    impact_on_outcomes: 'Small',
    prompt_improvements: ['Ask for the email'],
    correlation: { adherence_to_satisfaction: 'high', critical_misses: [] },
  },
  sentiment_flow: [
    { time: '00:00', sentiment: 0.2, label: 'curious' },
    { time: '00:05', sentiment: 0.8, label: 'keen' },
  ],
  key_moments: [{ time: '00:05', type: 'commitment', description: 'Agreed to a demo' }],
  action_items: [{ owner: 'agent', task: 'Send the invite', priority: 'high' }],
  summary: 'The caller booked a demo.',
  insights: ['Price was not raised'],
  risk_flags: [],
  next_steps: 'Send the calendar invite.',
};
const TRANSCRIPT =
  'Agent: Hello, would you like a demo?\nCaller: Yes please, Friday works.\nCaller: Two of us will join.\nAgent: Booked.';

const reportAnswer = (args: unknown) => ({
  toolCalls: [{ id: `call_${newId()}`, name: 'submit_call_report', arguments: JSON.stringify(args) }],
});
const overviewAnswer = (args: unknown) => ({
  toolCalls: [{ id: `call_${newId()}`, name: 'submit_call_analysis', arguments: JSON.stringify(args) }],
});

beforeAll(async () => {
  t = await startTestApp({ bus: await createIsolatedBus() });
  llm = await startTestLlm(t.bus);
  org = await seedOrganisation(t.db.sql, 'Analytics');
  agent = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
  await updateAgentColumns(t.db.sql, agent, { agent_identity: 'You are Sam.', agent_task: 'Book demos.' });
});
afterAll(async () => {
  await llm?.close();
  await t?.close();
  await t?.bus.close();
});

async function call(columns: Parameters<typeof seedCall>[3] = {}): Promise<{ id: string; room: string }> {
  const room = `analytics-${newId()}`;
  const id = await seedCall(t.db.sql, org.organisationId, agent, {
    room_name: room,
    call_status: 'COMPLETED',
    ended_at: new Date(),
    call_duration: 150_000,
    ...columns,
  });
  return { id, room };
}
const analyze = (payload: Record<string, unknown>, key = org.key, app = t) =>
  app.call(key, { method: 'POST', url: '/api/v1/analytics/analyze', payload });

describe('POST /analytics/analyze', () => {
  it('stores and returns the report, with the counts measured from the transcript; a second request gets the same report', async () => {
    const { room } = await call();
    const asked = llm.fake.chat.requests.length;
    llm.fake.chat.enqueue(reportAnswer(REPORT));
    const res = await analyze({ room_name: room, transcriptText: TRANSCRIPT });
    expect(res.statusCode, res.body).toBe(200);
    const report = res.json().data;
    expect(report).toMatchObject({
      roomName: room,
      instructions: 'You are Sam.\n\nBook demos.',
      transcriptText: TRANSCRIPT,
      model: 'default',
    });
    expect(report.parsedAnalysis).toEqual({
      ...REPORT,
      // Agent 6 + 1 words in 2 turns, Caller 4 + 5 words in one turn: 7/16 = 43.75 %, 9/16 = 56.25 %; 150 s = 2.5 min.
      universal_metrics: { duration_minutes: 2.5, total_speakers: 2, word_count: 16 },
      speaker_distribution: [
        { speaker: 'Agent', percentage: 43.8, turns: 2 },
        { speaker: 'Caller', percentage: 56.3, turns: 1 },
      ],
    });
    expect(report.tokenUsage.total_tokens).toBeGreaterThan(0);
    const prompt = (llm.fake.chat.requests[asked]!.body as { messages: { content: string }[] }).messages
      .map((m) => m.content)
      .join('\n');
    expect(prompt).toContain('Book demos.');
    expect(prompt).toContain('Caller: Two of us will join.');

    const again = await analyze({ room_name: room, transcriptText: 'Something else entirely', instructions: 'Other' });
    expect(again.json().data).toEqual(report);
    expect(llm.fake.chat.requests.length).toBe(asked + 1);
  });

  it('uses the instructions sent; a failed analysis is final', async () => {
    const { room } = await call();
    llm.fake.chat.enqueue(reportAnswer({ ...REPORT, summary: 5 }), reportAnswer({ summary: 'only this' }));
    const failed = await analyze({ room_name: room, transcriptText: TRANSCRIPT, instructions: 'Be brief.' });
    expect(failed.statusCode).toBe(502);
    expect(failed.json()).toMatchObject({ success: false, code: 'analysis_failed' });
    const asked = llm.fake.chat.requests.length;
    const again = await analyze({ room_name: room, transcriptText: TRANSCRIPT });
    expect(again.statusCode).toBe(502);
    expect(again.json().message).toMatch(/failed and is final/);
    expect(llm.fake.chat.requests.length).toBe(asked);
    const [row] = await t.db.sql`select status, instructions from call_analysis_reports where room_name = ${room}`;
    expect(row).toEqual({ status: 'failed', instructions: 'Be brief.' });
  });

  it("404 for an unknown room or another organisation's call; 400 names a missing field", async () => {
    expect((await analyze({ room_name: 'no-such-room', transcriptText: TRANSCRIPT })).statusCode).toBe(404);
    const other = await seedOrganisation(t.db.sql, 'Other');
    const { room } = await call();
    expect((await analyze({ room_name: room, transcriptText: TRANSCRIPT }, other.key)).statusCode).toBe(404);
    const missing = await analyze({ room_name: room });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({
      success: false,
      errors: [{ field: 'transcriptText', message: 'is required' }],
    });
  });

  it('503 without storing anything when no language model answers; the call can be analysed later', async () => {
    const lonelyBus = await createIsolatedBus();
    const lonely = await startTestApp({ db: t.db, bus: lonelyBus });
    try {
      const { room } = await call();
      const res = await analyze({ room_name: room, transcriptText: TRANSCRIPT }, org.key, lonely);
      expect(res.statusCode).toBe(503);
      expect(await t.db.sql`select 1 from call_analysis_reports where room_name = ${room}`).toHaveLength(0);
      llm.fake.chat.enqueue(reportAnswer(REPORT));
      expect((await analyze({ room_name: room, transcriptText: TRANSCRIPT })).statusCode).toBe(200);
    } finally {
      await lonely.close();
      await lonelyBus.close();
    }
  }, 20_000);

  it('is rate limited per key and per calling host', async () => {
    const limited = await startTestApp({ db: t.db, bus: t.bus, rateLimits: { analytics: 2 } });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i += 1)
        statuses.push((await analyze({ room_name: 'no-such-room', transcriptText: 'x' }, org.key, limited)).statusCode);
      expect(statuses).toEqual([404, 404, 429]);
      const otherKey = (await seedOrganisation(t.db.sql, 'Same host')).key;
      // Another key from the same host is stopped by the per-host limit.
      expect((await analyze({ room_name: 'no-such-room', transcriptText: 'x' }, otherKey, limited)).statusCode).toBe(
        429,
      );
    } finally {
      await limited.close();
    }
  });
});

describe('POST /analytics/analyze-overview', () => {
  const OVERVIEW = {
    score: 6,
    classification: 'Relevant',
    user_sentiment: 'neutral',
    summary: ['Asked for a callback'],
    result: {
      code: 'callback',
      quote: 'call me tomorrow',
      quote_en: 'call me tomorrow',
      callback_at: null,
      callback_time: 'tomorrow',
    },
  };

  it('replaces the stored overview from the stored transcript, leaving the agent result as it was', async () => {
    const agentResult = {
      outcomeKey: 'x',
      outcomeLabel: 'X',
      captured: {},
      resultSource: 'analysis',
      flowPath: null,
      decidedAt: '2025-01-01T00:00:00Z',
    };
    const { id, room } = await call({ overview: { score: 1, summary: ['old'] }, agent_result: agentResult });
    await t.db.sql`insert into call_transcripts (id, organisation_id, call_id, speaker, text, start_ms, end_ms)
      values (${newId()}, ${org.organisationId}, ${id}, 'user', 'Please call me tomorrow.', 0, 1500)`;
    llm.fake.chat.enqueue(overviewAnswer({ overview: OVERVIEW }));
    const res = await t.call(org.key, {
      method: 'POST',
      url: '/api/v1/analytics/analyze-overview',
      payload: { roomName: room },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      overview: { ...OVERVIEW, result: { ...OVERVIEW.result, evidence_status: 'verified' } },
      result: {
        code: 'callback',
        quote: 'call me tomorrow',
        quote_en: 'call me tomorrow',
        callback_time: 'tomorrow',
        callback_at: null,
        evidence_status: 'verified',
      },
      agentResult,
    });
    const stored = (await t.call(org.key, { method: 'GET', url: `/api/v1/voice-sessions/${id}` })).json().data;
    expect(stored.overview.summary).toEqual(['Asked for a callback']);
    expect(stored.agentResult).toEqual(agentResult);
  });

  it('404 for a call without transcript; 500 when the model fails', async () => {
    const { id, room } = await call();
    expect(
      (
        await t.call(org.key, {
          method: 'POST',
          url: '/api/v1/analytics/analyze-overview',
          payload: { roomName: room },
        })
      ).statusCode,
    ).toBe(404);
    await t.db.sql`insert into call_transcripts (id, organisation_id, call_id, speaker, text, start_ms, end_ms)
      values (${newId()}, ${org.organisationId}, ${id}, 'user', 'Hello?', 0, 500)`;
    llm.fake.chat.enqueue({ error: { status: 500, message: 'upstream exploded' } });
    const failed = await t.call(org.key, {
      method: 'POST',
      url: '/api/v1/analytics/analyze-overview',
      payload: { roomName: room },
    });
    expect(failed.statusCode).toBe(500);
    expect(failed.json().code).toBe('ai_model_failed');
  });
});
