/**
 * The post-call analysis job against the real LLM worker role and the engine's fake OpenAI server: the overview and
 * the agent result of a call, an answer that does not fit (sent back, then retried with backoff, then a recorded
 * failure), no language model, leases that lapse, and two runners on one queue.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { Bus } from '@parley/engine/bus';
import { CallAnalyst } from '../src/calls/analysis/call-analyst.ts';
import { queueAnalysis } from '../src/calls/repository/call-repository.ts';
import { openDatabase } from '../src/db/database.ts';
import { newId } from '../src/db/ids.ts';
import {
  NO_LANGUAGE_MODEL_SKIP,
  PostCallAnalysisJob,
  type PostCallAnalysisOptions,
} from '../src/calls/analysis/post-call-job.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedAgent, seedCall, seedOrganisation, updateAgentColumns, type SeededOrganisation } from './support/seed.ts';
import { createIsolatedBus, startTestLlm, type TestLlm } from './support/workers.ts';

let t: TestApp;
let llm: TestLlm;
let org: SeededOrganisation;
let promptAgent: string;
let flowAgent: string;
const silent = pino({ level: 'silent' });

const RESULTS_CONFIG = {
  outcomes: [
    { key: 'interested', label: 'Interested', description: 'Wants a demo' },
    { key: 'not_interested', label: 'Not interested' },
  ],
  fields: [
    { key: 'people', label: 'People', type: 'number' },
    { key: 'wants_demo', label: 'Wants demo', type: 'yes_no' },
    { key: 'plan', label: 'Plan', type: 'choice', choices: ['basic', 'pro'] },
    { key: 'notes', label: 'Notes', type: 'text' },
  ],
};

const OVERVIEW = {
  score: 8,
  classification: 'Relevant',
  user_sentiment: 'positive',
  summary: ['Wants a demo on Friday', 'Two people will join'],
  result: {
    code: 'interested',
    quote: 'Friday at 5 works for me',
    quote_en: 'Friday at 5 works for me',
    callback_at: '2025-01-17T17:00:00+05:30',
    callback_time: 'Friday at 5',
  },
};
const AGENT_RESULT = { outcome: 'interested', captured: { people: 2, wants_demo: true, plan: 'PRO', notes: null } };

const toolAnswer = (args: unknown) => ({
  toolCalls: [{ id: `call_${newId()}`, name: 'submit_call_analysis', arguments: JSON.stringify(args) }],
});

beforeAll(async () => {
  t = await startTestApp({ bus: await createIsolatedBus() });
  llm = await startTestLlm(t.bus);
  org = await seedOrganisation(t.db.sql, 'Analysed');
  promptAgent = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
  await updateAgentColumns(t.db.sql, promptAgent, {
    results_config: RESULTS_CONFIG,
    agent_identity: 'You are Sam from Acme.',
    agent_task: 'Book product demos.',
    timezone: 'Asia/Kolkata',
  });
  flowAgent = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
  await updateAgentColumns(t.db.sql, flowAgent, {
    builder_mode: 'FLOW',
    results_config: { outcomes: [{ key: 'booked', label: 'Booked' }], fields: [] },
  });
});
afterAll(async () => {
  await llm?.close();
  await t?.close();
  await t?.bus.close();
});
beforeEach(async () => {
  // Each test owns the queue: earlier tests' leftovers must not be claimed.
  await t.db.sql`update call_analysis_jobs set status = 'done' where status = 'pending'`;
});

/** An ended call with a short conversation, queued for analysis now. */
async function endedCall(
  agentId = promptAgent,
  lines: [string, string][] = [
    ['assistant', 'Hi, this is Sam from Acme. Would you like a demo?'],
    ['user', 'Yes, Friday at 5 works for me. We are two people.'],
  ],
): Promise<string> {
  const id = await seedCall(t.db.sql, org.organisationId, agentId, {
    call_status: 'COMPLETED',
    call_outcome: 'completed',
    created_at: new Date('2025-01-15T10:00:00Z'),
    dispatched_at: new Date('2025-01-15T10:00:00Z'),
    answered_at: new Date('2025-01-15T10:00:04Z'),
    ended_at: new Date('2025-01-15T10:02:00Z'),
    call_duration: 116_000,
  });
  for (const [i, [speaker, text]] of lines.entries()) {
    await t.db.sql`insert into call_transcripts (id, organisation_id, call_id, speaker, text, start_ms, end_ms)
      values (${newId()}, ${org.organisationId}, ${id}, ${speaker}, ${text}, ${i * 3_000}, ${i * 3_000 + 2_000})`;
  }
  await queueAnalysis(t.db.sql, id, org.organisationId, 0);
  return id;
}

function job(options: Partial<PostCallAnalysisOptions> = {}, bus: Bus = t.bus) {
  return new PostCallAnalysisJob(t.db.sql, new CallAnalyst(bus), silent, {
    languageModel: true,
    retryBaseSeconds: 0,
    ...options,
  });
}

const record = async (id: string) =>
  (await t.call(org.key, { method: 'GET', url: `/api/v1/voice-sessions/${id}` })).json().data;
const jobRow = async (callId: string) =>
  (
    await t.db.sql<{ status: string; attempts: number; last_error: string | null; next_attempt_at: Date }[]>`
  select status, attempts, last_error, next_attempt_at from call_analysis_jobs where call_id = ${callId}`
  )[0]!;

describe('post-call analysis', () => {
  it('stores the overview (quote checked against the caller) and the agent result, asking the model against a schema', async () => {
    const id = await endedCall();
    const asked = llm.fake.chat.requests.length;
    llm.fake.chat.enqueue(toolAnswer({ overview: OVERVIEW, agent_result: AGENT_RESULT }));
    expect(await job().runOnce()).toEqual(new Map([[id, 'done']]));
    const call = await record(id);
    expect(call.overview).toMatchObject({ ...OVERVIEW, result: { ...OVERVIEW.result, evidence_status: 'verified' } });
    expect(call.agentResult).toMatchObject({
      outcomeKey: 'interested',
      outcomeLabel: 'Interested',
      captured: { people: 2, wants_demo: true, plan: 'pro' },
      resultSource: 'analysis',
      flowPath: null,
    });
    expect(call).toMatchObject({ analysisStatus: 'done', analysisError: null });
    expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 1 });

    const request = llm.fake.chat.requests[asked]!.body as {
      messages: { role: string; content: string }[];
      tools: { function: { name: string; parameters: { properties: Record<string, unknown> } } }[];
    };
    expect(request.tools[0]!.function.name).toBe('submit_call_analysis');
    expect(Object.keys(request.tools[0]!.function.parameters.properties)).toEqual(['overview', 'agent_result']);
    const prompt = request.messages.map((m) => m.content).join('\n');
    expect(prompt).toContain('Caller: Yes, Friday at 5 works for me.');
    expect(prompt).toContain('- interested: Interested (Wants a demo)');
    expect(prompt).toContain('15:30 Asia/Kolkata');
    // Done is done: nothing is claimed again.
    expect((await job().runOnce()).size).toBe(0);
  });

  it('sends an answer that does not fit back once, and stores the corrected one', async () => {
    const id = await endedCall();
    const asked = llm.fake.chat.requests.length;
    llm.fake.chat.enqueue(
      toolAnswer({ overview: { ...OVERVIEW, score: 11, mood: 'great' }, agent_result: AGENT_RESULT }),
      toolAnswer({ overview: OVERVIEW, agent_result: { ...AGENT_RESULT, outcome: 'not_interested' } }),
    );
    expect(await job().runOnce()).toEqual(new Map([[id, 'done']]));
    expect((await record(id)).agentResult.outcomeKey).toBe('not_interested');
    const second = llm.fake.chat.requests[asked + 1]!.body as { messages: { role: string; content: string }[] };
    const feedback = second.messages.at(-1)!;
    expect(feedback.role).toBe('tool');
    expect(feedback.content).toMatch(/rejected: .*\/overview/);
  });

  it('never stores half an answer: a second misfit retries the job with backoff, and the last attempt records the failure', async () => {
    const id = await endedCall();
    const misfit = toolAnswer({ overview: OVERVIEW, agent_result: { outcome: 'sold', captured: {} } });
    llm.fake.chat.enqueue(misfit, misfit);
    expect(await job({ retryBaseSeconds: 30, maxAttempts: 2 }).runOnce()).toEqual(new Map([[id, 'retry']]));
    const waiting = await jobRow(id);
    expect(waiting).toMatchObject({ status: 'pending', attempts: 1 });
    expect(waiting.last_error).toMatch(/did not fit the analysis schema/);
    // Backoff: the first retry waits RETRY_BASE (30 s here).
    expect(waiting.next_attempt_at.getTime() - Date.now()).toBeGreaterThan(25_000);
    expect(await record(id)).toMatchObject({ overview: null, agentResult: null, analysisStatus: 'pending' });
    expect((await job().runOnce()).size).toBe(0);

    await t.db.sql`update call_analysis_jobs set next_attempt_at = now() where call_id = ${id}`;
    llm.fake.chat.enqueue(misfit, misfit);
    expect(await job({ maxAttempts: 2 }).runOnce()).toEqual(new Map([[id, 'failed']]));
    const failed = await record(id);
    expect(failed).toMatchObject({ overview: null, agentResult: null, analysisStatus: 'failed' });
    expect(failed.analysisError).toMatch(/did not fit the analysis schema after 2 tries/);
    expect((await jobRow(id)).status).toBe('failed');
  });

  it('retries after a model error and then succeeds', async () => {
    const id = await endedCall();
    llm.fake.chat.enqueue({ error: { status: 400, message: 'context too long for this model' } });
    expect(await job().runOnce()).toEqual(new Map([[id, 'retry']]));
    expect((await jobRow(id)).last_error).toMatch(/context too long/);
    llm.fake.chat.enqueue(toolAnswer({ overview: OVERVIEW, agent_result: AGENT_RESULT }));
    expect(await job().runOnce()).toEqual(new Map([[id, 'done']]));
    expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 2 });
  });

  it('says plainly that nothing was analysed when no language model is configured, once', async () => {
    const id = await endedCall();
    const asked = llm.fake.chat.requests.length;
    const noModel = job({ languageModel: false });
    expect(await noModel.runOnce()).toEqual(new Map([[id, 'skipped']]));
    expect(await record(id)).toMatchObject({
      overview: null,
      analysisStatus: 'skipped',
      analysisError: NO_LANGUAGE_MODEL_SKIP,
    });
    expect((await noModel.runOnce()).size).toBe(0);
    expect(llm.fake.chat.requests.length).toBe(asked);
  });

  it('retries, without crashing, when a model is configured but no LLM worker answers', async () => {
    const id = await endedCall();
    const lonely = await createIsolatedBus();
    try {
      expect(await job({}, lonely).runOnce()).toEqual(new Map([[id, 'retry']]));
      expect((await jobRow(id)).last_error).toMatch(/No language model is available/);
    } finally {
      await lonely.close();
    }
  }, 20_000);

  it('gives a call in which the person said nothing its overview without asking the model', async () => {
    const id = await endedCall(promptAgent, [['assistant', 'Hello? Is anyone there?']]);
    const asked = llm.fake.chat.requests.length;
    expect(await job({ languageModel: false }).runOnce()).toEqual(new Map([[id, 'done']]));
    expect((await record(id)).overview).toMatchObject({
      score: null,
      classification: 'Irrelevant',
      result: { code: 'no_conversation', evidence_status: 'none' },
    });
    expect(llm.fake.chat.requests.length).toBe(asked);
  });

  it("asks only for the overview of a FLOW agent's call and keeps the flow's result", async () => {
    const id = await endedCall(flowAgent);
    const flowResult = {
      outcomeKey: 'booked',
      outcomeLabel: 'Booked',
      captured: {},
      resultSource: 'flow',
      flowPath: ['greet', 'book'],
      decidedAt: '2025-01-15T10:02:00Z',
    };
    await t.db.sql`update call_records set agent_result = ${t.db.sql.json(flowResult)} where id = ${id}`;
    const asked = llm.fake.chat.requests.length;
    llm.fake.chat.enqueue(
      toolAnswer({ overview: { ...OVERVIEW, result: { ...OVERVIEW.result, quote: 'not what they said' } } }),
    );
    expect(await job().runOnce()).toEqual(new Map([[id, 'done']]));
    const call = await record(id);
    expect(call.agentResult).toEqual(flowResult);
    expect(call.overview.result.evidence_status).toBe('unverified');
    const tool = (
      llm.fake.chat.requests[asked]!.body as {
        tools: { function: { parameters: { properties: Record<string, unknown> } } }[];
      }
    ).tools[0]!;
    expect(Object.keys(tool.function.parameters.properties)).toEqual(['overview']);
  });

  it('a runner whose lease lapsed cannot overwrite the result of the runner that took the job over', async () => {
    const id = await endedCall();
    // Runner A's claim lapses at once, and its model answers slowly; runner B takes the job meanwhile.
    llm.fake.chat.enqueue(
      {
        ...toolAnswer({ overview: { ...OVERVIEW, summary: ['from A'] }, agent_result: AGENT_RESULT }),
        headerDelayMs: 1_500,
      },
      toolAnswer({ overview: { ...OVERVIEW, summary: ['from B'] }, agent_result: AGENT_RESULT }),
    );
    const a = job({ claimSeconds: 0 }).runOnce();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await job().runOnce()).toEqual(new Map([[id, 'done']]));
    expect(await a).toEqual(new Map([[id, 'lease_lost']]));
    expect((await record(id)).overview.summary).toEqual(['from B']);
  });

  it.skipIf(!process.env.DATABASE_URL)(
    'two runners on separate connections never analyse the same call twice (real Postgres: FOR UPDATE SKIP LOCKED)',
    async () => {
      const other = await openDatabase({
        databaseUrl: t.db.url,
        schema: t.db.schema,
        dataDir: undefined,
        maxConnections: 4,
      });
      try {
        const ids = [];
        for (let i = 0; i < 6; i += 1) ids.push(await endedCall());
        const asked = llm.fake.chat.requests.length;
        for (let i = 0; i < 6; i += 1)
          llm.fake.chat.enqueue(toolAnswer({ overview: OVERVIEW, agent_result: AGENT_RESULT }));
        const runners = [
          job(),
          new PostCallAnalysisJob(other.sql, new CallAnalyst(t.bus), silent, { languageModel: true }),
        ];
        const seen: string[] = [];
        for (let round = 0; round < 4; round += 1) {
          const passes = await Promise.all(runners.map((r) => r.runOnce()));
          for (const pass of passes) seen.push(...pass.keys());
        }
        expect(seen.sort()).toEqual([...ids].sort());
        expect(llm.fake.chat.requests.length - asked).toBe(6);
        for (const id of ids) expect(await jobRow(id)).toMatchObject({ status: 'done', attempts: 1 });
      } finally {
        await other.close();
      }
    },
  );
});
