/**
 * Campaign data extraction (docs/architecture.md §13): a campaign's dataExtractionSchema is checked on save, and the
 * post-call analysis fills its fields from a campaign call's transcript — through the real LLM worker role against
 * the engine's fake OpenAI server — onto the contact, where the contacts list shows them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { CallAnalyst } from '../src/calls/analysis/call-analyst.ts';
import { PostCallAnalysisJob } from '../src/calls/analysis/post-call-job.ts';
import { queueAnalysis } from '../src/calls/repository/call-repository.ts';
import { newId } from '../src/db/ids.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedCall, seedOrganisation, seedPhoneNumber, type SeededOrganisation } from './support/seed.ts';
import { createIsolatedBus, startTestLlm, type TestLlm } from './support/workers.ts';

let t: TestApp;
let llm: TestLlm;
let org: SeededOrganisation;
let agentId: string;

const SCHEMA = {
  fields: [
    { key: 'visit_day', label: 'Day of the visit', type: 'date' },
    { key: 'plan', label: 'Plan', type: 'choice', choices: ['basic', 'pro'] },
    { key: 'people', label: 'People coming', type: 'number' },
    { key: 'notes', label: 'Notes', type: 'text' },
  ],
};
const toolAnswer = (name: string, args: unknown) => ({
  toolCalls: [{ id: `call_${newId()}`, name, arguments: JSON.stringify(args) }],
});
const OVERVIEW = {
  score: 8,
  classification: 'Relevant',
  user_sentiment: 'positive',
  summary: ['Booked a visit'],
  result: {
    code: 'booked',
    quote: 'Friday the tenth is fine',
    quote_en: 'Friday the tenth is fine',
    callback_at: null,
    callback_time: null,
  },
};

beforeAll(async () => {
  t = await startTestApp({ bus: await createIsolatedBus() });
  llm = await startTestLlm(t.bus);
  org = await seedOrganisation(t.db.sql, 'Extracting');
  await seedPhoneNumber(t.db.sql, org.organisationId, { provider: 'carrier-a', phoneNumber: '+14155550120' });
  const res = await t.call(org.key, {
    method: 'POST',
    url: '/api/v1/voice/agents',
    payload: { name: 'Caller', agentIdentity: 'You call people.', agentTask: 'Book visits.', greetingMessage: 'Hi' },
  });
  agentId = res.json().data.id;
}, 60_000);
afterAll(async () => {
  await llm?.close();
  await t?.close();
  await t?.bus.close();
});

const create = (dataExtractionSchema: unknown) =>
  t.call(org.key, {
    method: 'POST',
    url: '/api/v1/campaigns',
    payload: {
      name: 'Visits',
      organisationId: org.organisationId,
      voiceAgentId: agentId,
      callStartTime: '09:00',
      callEndTime: '17:00',
      dataExtractionSchema,
    },
  });

describe('data extraction', () => {
  it.each([
    [{ fields: [{ key: 'Bad Key', label: 'x', type: 'text' }] }, 'dataExtractionSchema.fields.0.key'],
    [{ fields: [{ key: 'plan', label: 'Plan', type: 'choice' }] }, 'dataExtractionSchema.fields.0.choices'],
    [{ fields: [{ key: 'x', label: 'X', type: 'email' }] }, 'dataExtractionSchema.fields.0.type'],
    [{ fields: 'all' }, 'dataExtractionSchema.fields'],
    [{ fields: [], extra: 1 }, 'dataExtractionSchema.extra'],
  ])('refuses %j naming %s', async (schema, field) => {
    const res = await create(schema);
    expect(res.statusCode, res.body).toBe(400);
    expect((res.json().errors as { field: string }[]).map((e) => e.field)).toContain(field);
  });

  it("fills the campaign's fields from a campaign call's transcript onto its contact", async () => {
    const created = await create(SCHEMA);
    expect(created.statusCode, created.body).toBe(201);
    const campaignId = created.json().data.id as string;
    expect(created.json().data.dataExtractionSchema).toEqual(SCHEMA);
    await t.call(org.key, {
      method: 'POST',
      url: `/api/v1/campaigns/${campaignId}/contacts`,
      payload: { contacts: [{ phone: '+14155556000', name: 'Ann' }] },
    });
    // The call the dialler placed for the contact, ended, with what was said.
    const callId = await seedCall(t.db.sql, org.organisationId, agentId, {
      campaign_id: campaignId,
      call_status: 'COMPLETED',
      call_outcome: 'completed',
      answered_at: new Date('2027-04-01T10:00:04Z'),
      ended_at: new Date('2027-04-01T10:02:00Z'),
      call_duration: 116_000,
    });
    await t.db.sql`update campaign_contacts set status = 'COMPLETED', call_id = ${callId}, attempts = 1
                    where campaign_id = ${campaignId}`;
    const lines: [string, string][] = [
      ['assistant', 'Hello Ann, when would you like to visit, and on which plan?'],
      ['user', 'Friday the tenth is fine, the pro plan, and we are three.'],
    ];
    for (const [i, [speaker, text]] of lines.entries())
      await t.db.sql`insert into call_transcripts (id, organisation_id, call_id, speaker, text, start_ms, end_ms)
        values (${newId()}, ${org.organisationId}, ${callId}, ${speaker}, ${text}, ${i * 3_000}, ${i * 3_000 + 2_000})`;
    await queueAnalysis(t.db.sql, callId, org.organisationId, 0);
    const asked = llm.fake.chat.requests.length;
    llm.fake.chat.enqueue(
      toolAnswer('submit_call_analysis', { overview: OVERVIEW }),
      toolAnswer('submit_call_data', { captured: { visit_day: '2027-04-09', plan: 'PRO', people: 3, notes: null } }),
    );
    const job = new PostCallAnalysisJob(t.db.sql, new CallAnalyst(t.bus), pino({ level: 'silent' }), {
      languageModel: true,
      retryBaseSeconds: 0,
    });
    const outcome = await job.runOnce();
    const [jobRow] = await t.db.sql`select last_error from call_analysis_jobs where call_id = ${callId}`;
    expect(outcome, JSON.stringify(jobRow)).toEqual(new Map([[callId, 'done']]));
    const request = llm.fake.chat.requests[asked + 1]!.body as {
      messages: { content: string }[];
      tools: { function: { name: string; parameters: { properties: { captured: { properties: object } } } } }[];
    };
    expect(request.tools[0]!.function.name).toBe('submit_call_data');
    expect(Object.keys(request.tools[0]!.function.parameters.properties.captured.properties)).toEqual([
      'visit_day',
      'plan',
      'people',
      'notes',
    ]);
    expect(request.messages.map((m) => m.content).join('\n')).toContain('- plan: Plan, choice (one of: basic, pro)');
    const contacts = (await t.call(org.key, { method: 'GET', url: `/api/v1/campaigns/${campaignId}/contacts` })).json()
      .data.contacts;
    // The choice's case is forgiven; a value not said is left out.
    expect(contacts[0].extractedData).toEqual({ visit_day: '2027-04-09', plan: 'pro', people: 3 });
    const csv = await t.call(org.key, { method: 'GET', url: `/api/v1/campaigns/${campaignId}/contacts/export` });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const [header, row] = csv.body.replace(/^\uFEFF/, '').split('\r\n');
    expect(header).toBe(
      'Phone,Name,Status,Attempts,Last outcome,Failure reason,Call ID,Day of the visit,Plan,People coming,Notes,Variables',
    );
    expect(row).toBe(`+14155556000,Ann,COMPLETED,1,,,room-${callId},2027-04-09,pro,3,,`);
  });
});
