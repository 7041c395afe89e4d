/**
 * Per-agent results on seeded calls, checked against figures worked out by hand: which calls count, outcomes (and
 * no_result), filters, pages, the agent's time zone, the CSV's columns, the default agent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/db/ids.ts';
import { PUBLIC_URL, startTestApp, type TestApp } from './support/app.ts';
import {
  seedAgent,
  seedCall,
  seedOrganisation,
  updateAgentColumns,
  type CallSeed,
  type SeededOrganisation,
} from './support/seed.ts';

let t: TestApp;
let org: SeededOrganisation;
let agent: string;
const campaignId = newId();
const calls: Record<string, string> = {};

const RESULTS_CONFIG = {
  outcomes: [
    { key: 'interested', label: 'Interested' },
    { key: 'not_interested', label: 'Not interested' },
    { key: 'callback', label: 'Callback requested' },
  ],
  fields: [
    { key: 'visits', label: 'Visits', type: 'number' },
    { key: 'wants_demo', label: 'Wants demo', type: 'yes_no' },
    { key: 'plan', label: 'Plan', type: 'choice', choices: ['basic', 'pro'] },
  ],
};

const analysed = (outcomeKey: string, captured: Record<string, unknown>) => ({
  outcomeKey,
  outcomeLabel: outcomeKey,
  captured,
  resultSource: 'analysis',
  flowPath: null,
  decidedAt: '2025-01-20T00:00:00.000Z',
});

/** A placed call: started (dispatched) at `at`, which is also when it was created. */
function placed(at: string, columns: CallSeed): CallSeed {
  return { created_at: new Date(at), dispatched_at: new Date(at), ...columns };
}

beforeAll(async () => {
  t = await startTestApp();
  org = await seedOrganisation(t.db.sql, 'Results');
  agent = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
  await updateAgentColumns(t.db.sql, agent, {
    timezone: 'Asia/Kolkata',
    results_config: RESULTS_CONFIG,
    name: 'Renewals bot',
  });
  const seed = (name: string, columns: CallSeed) =>
    seedCall(t.db.sql, org.organisationId, agent, columns).then((id) => {
      calls[name] = id;
    });
  const c1 = newId();
  await seed(
    'c1',
    placed('2025-01-10T04:00:00Z', {
      id: c1,
      participant_name: 'Asha Rao',
      phone_number: '+919800000001',
      source: 'api',
      use_case: 'renewals',
      call_status: 'COMPLETED',
      call_outcome: 'completed',
      answered_at: new Date('2025-01-10T04:00:05Z'),
      ended_at: new Date('2025-01-10T04:01:35Z'),
      call_duration: 90_000,
      agent_result: analysed('interested', { visits: 3, wants_demo: true, plan: 'pro' }),
      overview: {
        score: 8,
        classification: 'Relevant',
        user_sentiment: 'positive',
        summary: ['Wants pro plan', 'Asked for demo'],
        result: {
          code: 'interested',
          quote: 'haan, demo chahiye',
          quote_en: 'yes, I want a demo',
          evidence_status: 'verified',
          callback_at: null,
          callback_time: null,
        },
      },
      actions: {
        tracking: '1 tool call: book_demo',
        items: [{ type: 'tool_call', name: 'book_demo', ok: true, durationMs: 300, atMs: 40_000 }],
      },
      recording_url: `/voice-sessions/${c1}/recording`,
    }),
  );
  await seed(
    'c2',
    placed('2025-01-10T20:00:00Z', {
      participant_name: 'Ben Stone',
      phone_number: '+447700900002',
      source: 'inbound',
      call_direction: 'INBOUND',
      calling_number: '+15550001111',
      call_status: 'COMPLETED',
      call_outcome: 'completed',
      answered_at: new Date('2025-01-10T20:00:01Z'),
      ended_at: new Date('2025-01-10T20:00:31Z'),
      call_duration: 30_000,
      agent_result: analysed('not_interested', { wants_demo: false, colour: 'red' }),
      overview: {
        score: 3,
        classification: 'Relevant',
        user_sentiment: 'negative',
        summary: ['Not interested'],
        result: {
          code: 'not_interested',
          quote: '',
          quote_en: '',
          evidence_status: 'none',
          callback_at: null,
          callback_time: null,
        },
      },
    }),
  );
  await seed(
    'c3',
    placed('2025-01-12T10:00:00Z', {
      participant_name: '=2+3',
      source: 'campaign',
      campaign_id: campaignId,
      phone_number: null,
      call_status: 'COMPLETED',
      call_outcome: 'voicemail',
      ended_at: new Date('2025-01-12T10:00:45Z'),
      call_duration: 45_000,
    }),
  );
  await seed(
    'c4',
    placed('2025-01-13T10:00:00Z', {
      participant_name: 'Dev Patel',
      phone_number: '+919800000004',
      source: 'api',
      use_case: 'renewals',
      call_status: 'COMPLETED',
      call_outcome: 'completed',
      answered_at: new Date('2025-01-13T10:00:02Z'),
      ended_at: new Date('2025-01-13T10:02:00Z'),
      call_duration: 120_000,
      // An outcome the agent no longer tracks: no_result, though its fields still show.
      agent_result: analysed('old_outcome', { visits: 5 }),
    }),
  );
  // Never placed: scheduled, and a record only. Neither counts.
  await seed('scheduled', {
    created_at: new Date('2025-01-14T10:00:00Z'),
    call_status: 'SCHEDULED',
    scheduled_time: new Date('2025-01-20T10:00:00Z'),
  });
  await seed('recordOnly', { created_at: new Date('2025-01-15T10:00:00Z'), call_status: null });
  // Still "in progress" long after it started: counted (no_result, no duration).
  await seed(
    'c7',
    placed('2025-01-16T10:00:00Z', {
      participant_name: 'Eve',
      phone_number: null,
      source: 'widget',
      call_status: 'IN_PROGRESS',
      answered_at: new Date('2025-01-16T10:00:03Z'),
    }),
  );
  // The first instant after the range.
  await seed(
    'after',
    placed('2025-02-01T00:00:00Z', {
      call_status: 'COMPLETED',
      ended_at: new Date('2025-02-01T00:01:00Z'),
      call_duration: 60_000,
    }),
  );
  // Another agent's call in the range.
  const otherAgent = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
  await seedCall(
    t.db.sql,
    org.organisationId,
    otherAgent,
    placed('2025-01-11T10:00:00Z', { call_status: 'COMPLETED', ended_at: new Date('2025-01-11T10:01:00Z') }),
  );
});
afterAll(() => t?.close());

const JANUARY = { from: '2025-01-01', to: '2025-01-31' };
const get = (path: string, query: Record<string, string> = {}, key = org.key) =>
  t.call(key, { method: 'GET', url: `/api/v1/voice/agents/${agent}/results${path}`, query });

describe('results summary', () => {
  it('counts placed calls that ended (and calls live for over 2 hours) in [from, to): calls, minutes, outcomes, fields, use cases', async () => {
    const res = await get('/summary', JANUARY);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({
      calls: 5,
      minutes: 4.75, // (90 + 30 + 45 + 120) s = 285 s
      outcomes: [
        { key: 'interested', label: 'Interested', count: 1 },
        { key: 'not_interested', label: 'Not interested', count: 1 },
        { key: 'callback', label: 'Callback requested', count: 0 },
        { key: 'no_result', label: 'No result', count: 3 },
      ],
      fields: [
        { key: 'visits', label: 'Visits', type: 'number' },
        { key: 'wants_demo', label: 'Wants demo', type: 'yes_no' },
        { key: 'plan', label: 'Plan', type: 'choice', choices: ['basic', 'pro'] },
      ],
      useCases: [
        { key: 'use:renewals', label: 'renewals', count: 2 },
        { key: `campaign:${campaignId}`, label: `Campaign ${campaignId}`, count: 1 },
        { key: 'line:+15550001111', label: 'Line +15550001111', count: 1 },
        { key: 'unlabelled', label: 'Unlabelled', count: 1 },
      ],
    });
  });

  it('filters by source and use case; ignores search; keeps every use case listed', async () => {
    const api = (await get('/summary', { ...JANUARY, source: 'api' })).json().data;
    expect([api.calls, api.minutes]).toEqual([2, 3.5]);
    const renewals = (await get('/summary', { ...JANUARY, useCase: 'use:renewals' })).json().data;
    expect(renewals.calls).toBe(2);
    expect(renewals.outcomes.find((o: { key: string }) => o.key === 'no_result').count).toBe(1);
    expect(renewals.useCases).toHaveLength(4);
    const searched = (await get('/summary', { ...JANUARY, search: 'asha' })).json().data;
    expect(searched.calls).toBe(5);
  });

  it('refuses dates that are not dates, from not before to, and unknown use-case keys; 404 for another organisation', async () => {
    const bad = await get('/summary', { from: 'yesterday' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].field).toBe('from');
    const reversed = await get('/summary', { from: '2025-01-31', to: '2025-01-01' });
    expect(reversed.json().errors).toEqual([{ field: 'to', message: 'must be after from' }]);
    expect((await get('/summary', { useCase: 'colour:red' })).statusCode).toBe(400);
    const other = await seedOrganisation(t.db.sql, 'Nosy');
    expect((await get('/summary', {}, other.key)).statusCode).toBe(404);
  });

  it('counts a live call only once it started more than 2 hours ago (default range: 30 days to now)', async () => {
    const fresh = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    const ago = (h: number) => new Date(Date.now() - h * 3_600_000);
    await seedCall(t.db.sql, org.organisationId, fresh, {
      created_at: ago(3),
      dispatched_at: ago(3),
      call_status: 'IN_PROGRESS',
    });
    await seedCall(t.db.sql, org.organisationId, fresh, {
      created_at: ago(1),
      dispatched_at: ago(1),
      call_status: 'RINGING',
    });
    await seedCall(t.db.sql, org.organisationId, fresh, {
      created_at: ago(1),
      dispatched_at: ago(1),
      call_status: 'COMPLETED',
      ended_at: ago(0.9),
      call_duration: 60_000,
    });
    await seedCall(t.db.sql, org.organisationId, fresh, {
      created_at: ago(24 * 31),
      dispatched_at: ago(24 * 31),
      call_status: 'COMPLETED',
      ended_at: ago(24 * 31),
      call_duration: 60_000,
    });
    const res = await t.call(org.key, { method: 'GET', url: `/api/v1/voice/agents/${fresh}/results/summary` });
    expect(res.json().data).toMatchObject({
      calls: 2,
      minutes: 1,
      outcomes: [{ key: 'no_result', label: 'No result', count: 2 }],
    });
  });
});

describe('result rows', () => {
  it('lists newest first with every field of the result row', async () => {
    const res = await get('', JANUARY);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data.total).toBe(5);
    expect(data.items.map((r: { callId: string }) => r.callId)).toEqual([
      calls.c7,
      calls.c4,
      calls.c3,
      calls.c2,
      calls.c1,
    ]);
    expect(data.items[4]).toEqual({
      callId: calls.c1,
      roomName: `room-${calls.c1}`,
      startedAt: '2025-01-10T04:00:00.000Z',
      durationSeconds: 90,
      contactName: 'Asha Rao',
      contactPhone: '+919800000001',
      direction: 'outbound',
      source: 'api',
      useCase: 'use:renewals',
      callStatus: 'COMPLETED',
      outcomeKey: 'interested',
      outcomeLabel: 'Interested',
      captured: { visits: 3, wants_demo: true, plan: 'pro' },
      recordingUrl: `/voice-sessions/${calls.c1}/recording`,
      resultSource: 'analysis',
      flowPath: null,
    });
    // Only tracked fields are shown; an untracked outcome reads no_result.
    expect(data.items[3]).toMatchObject({
      direction: 'inbound',
      outcomeKey: 'not_interested',
      captured: { wants_demo: false },
    });
    expect(data.items[1]).toMatchObject({
      outcomeKey: 'no_result',
      outcomeLabel: 'No result',
      captured: { visits: 5 },
    });
    expect(data.items[0]).toMatchObject({ durationSeconds: null, resultSource: null, callStatus: 'IN_PROGRESS' });
  });

  it('filters by outcome (no_result too), search on name or number digits, and pages', async () => {
    const none = (await get('', { ...JANUARY, outcome: 'no_result' })).json().data;
    expect(none.items.map((r: { callId: string }) => r.callId)).toEqual([calls.c7, calls.c4, calls.c3]);
    expect(
      (await get('', { ...JANUARY, search: 'ASHA' })).json().data.items.map((r: { callId: string }) => r.callId),
    ).toEqual([calls.c1]);
    expect(
      (await get('', { ...JANUARY, search: '7700 900' })).json().data.items.map((r: { callId: string }) => r.callId),
    ).toEqual([calls.c2]);
    const page = (await get('', { ...JANUARY, page: '2', pageSize: '2' })).json().data;
    expect(page).toMatchObject({ total: 5, page: 2, pageSize: 2 });
    expect(page.items.map((r: { callId: string }) => r.callId)).toEqual([calls.c3, calls.c2]);
    const unknown = await get('', { outcome: 'bogus' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors[0].field).toBe('outcome');
    expect((await get('', { pageSize: '0' })).statusCode).toBe(400);
    expect((await get('', { page: '0' })).statusCode).toBe(400);
  });

  it("takes a FLOW agent's result from its flow, with the path it took", async () => {
    const flowAgent = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    await updateAgentColumns(t.db.sql, flowAgent, {
      builder_mode: 'FLOW',
      results_config: {
        outcomes: [{ key: 'booked', label: 'Booked' }],
        fields: [{ key: 'people', label: 'People', type: 'number' }],
      },
    });
    const id = await seedCall(
      t.db.sql,
      org.organisationId,
      flowAgent,
      placed('2025-01-05T12:00:00Z', {
        call_status: 'COMPLETED',
        ended_at: new Date('2025-01-05T12:01:00Z'),
        call_duration: 60_000,
        agent_result: {
          outcomeKey: 'booked',
          outcomeLabel: 'Booked',
          captured: { people: 4 },
          resultSource: 'flow',
          flowPath: ['greet', 'ask_people', 'done'],
          decidedAt: '2025-01-05T12:01:00Z',
        },
      }),
    );
    const res = await t.call(org.key, {
      method: 'GET',
      url: `/api/v1/voice/agents/${flowAgent}/results`,
      query: JANUARY,
    });
    expect(res.json().data.items).toEqual([
      expect.objectContaining({
        callId: id,
        outcomeKey: 'booked',
        captured: { people: 4 },
        resultSource: 'flow',
        flowPath: ['greet', 'ask_people', 'done'],
      }),
    ]);
  });
});

/** RFC 4180 rows of a CSV text. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += 1;
    } else field += ch;
  }
  return rows;
}

describe('results export', () => {
  it("writes UTF-8 with BOM, the spec's columns in order, times in the agent's zone, Yes/No, full recording URLs", async () => {
    const res = await get('/export', JANUARY);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="results-[0-9a-f]{24}-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    expect(res.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const rows = parseCsv(res.rawPayload.toString('utf8').slice(1));
    expect(rows[0]).toEqual([
      'Called on',
      'Caller',
      'Phone',
      'Source',
      'Use case',
      'Outcome',
      'Visits',
      'Wants demo',
      'Plan',
      'Minutes',
      'Call status',
      'Actions',
      'Call score',
      'Classification',
      'Sentiment',
      'They said',
      'Original quote',
      'Summary',
      'Recording',
    ]);
    expect(rows.slice(1)).toEqual([
      [
        '2025-01-16 15:30',
        'Eve',
        '',
        'Widget',
        '',
        'No result',
        '',
        '',
        '',
        '',
        'In progress',
        '',
        '',
        '',
        '',
        '',
        '',
        '',
        '',
      ],
      [
        '2025-01-13 15:30',
        'Dev Patel',
        '+919800000004',
        'API',
        'renewals',
        'No result',
        '5',
        '',
        '',
        '2.00',
        'Answered',
        '',
        '',
        '',
        '',
        '',
        '',
        '',
        '',
      ],
      [
        '2025-01-12 15:30',
        "'=2+3",
        '',
        'Campaign',
        `Campaign ${campaignId}`,
        'No result',
        '',
        '',
        '',
        '0.75',
        'Voicemail',
        '',
        '',
        '',
        '',
        '',
        '',
        '',
        '',
      ],
      [
        '2025-01-11 01:30',
        'Ben Stone',
        '+447700900002',
        'Inbound',
        'Line +15550001111',
        'Not interested',
        '',
        'No',
        '',
        '0.50',
        'Answered',
        '',
        '3',
        'Relevant',
        'negative',
        '',
        '',
        'Not interested',
        '',
      ],
      [
        '2025-01-10 09:30',
        'Asha Rao',
        '+919800000001',
        'API',
        'renewals',
        'Interested',
        '3',
        'Yes',
        'pro',
        '1.50',
        'Answered',
        '1 tool call: book_demo',
        '8',
        'Relevant',
        'positive',
        'yes, I want a demo',
        'haan, demo chahiye',
        'Wants pro plan\nAsked for demo',
        `${PUBLIC_URL}/api/v1/voice-sessions/${calls.c1}/recording`,
      ],
    ]);
  });

  it('applies the filters, and refuses a range of more than 20,000 calls', async () => {
    const rows = parseCsv(
      (await get('/export', { ...JANUARY, source: 'inbound' })).rawPayload.toString('utf8').slice(1),
    );
    expect(rows).toHaveLength(2);
    const busy = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
    await t.db
      .sql`insert into call_records (id, organisation_id, agent_id, room_name, call_type, call_status, created_at, dispatched_at, ended_at)
      select substr(md5(random()::text || g::text), 1, 24), ${org.organisationId}, ${busy}, 'bulk-' || ${busy} || '-' || g, 'sip', 'COMPLETED',
             timestamptz '2025-01-10T00:00:00Z' + make_interval(secs => g), timestamptz '2025-01-10T00:00:00Z' + make_interval(secs => g),
             timestamptz '2025-01-10T00:00:00Z' + make_interval(secs => g + 30)
        from generate_series(1, 20001) g`;
    const refused = await t.call(org.key, {
      method: 'GET',
      url: `/api/v1/voice/agents/${busy}/results/export`,
      query: JANUARY,
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toMatch(/20001 calls.*at most 20000/);
    const narrower = await t.call(org.key, {
      method: 'GET',
      url: `/api/v1/voice/agents/${busy}/results/export`,
      query: { from: '2025-01-10T00:00:00Z', to: '2025-01-10T00:00:11Z' },
    });
    expect(parseCsv(narrower.rawPayload.toString('utf8').slice(1))).toHaveLength(1 + 10);
  });
});

describe('default agent', () => {
  it('is the agent with the most recent placed call, else the most recently updated, else null; never a deleted one', async () => {
    const empty = await seedOrganisation(t.db.sql, 'Empty');
    const url = (o: SeededOrganisation) => `/api/v1/voice/organisations/${o.organisationId}/results/default-agent`;
    expect((await t.call(empty.key, { method: 'GET', url: url(empty) })).json().data).toEqual({ agentId: null });

    const o = await seedOrganisation(t.db.sql, 'Pick');
    const [a, b, c] = [
      await seedAgent(t.db.sql, o.organisationId, 'VOICE'),
      await seedAgent(t.db.sql, o.organisationId, 'VOICE'),
      await seedAgent(t.db.sql, o.organisationId, 'CHAT'),
    ];
    await updateAgentColumns(t.db.sql, a, { updated_at: new Date('2024-01-01T00:00:00Z') });
    await updateAgentColumns(t.db.sql, b, { updated_at: new Date('2024-06-01T00:00:00Z') });
    await updateAgentColumns(t.db.sql, c, { updated_at: new Date('2024-03-01T00:00:00Z') });
    expect((await t.call(o.key, { method: 'GET', url: url(o) })).json().data.agentId).toBe(b);
    await seedCall(
      t.db.sql,
      o.organisationId,
      a,
      placed('2025-01-02T00:00:00Z', { call_status: 'COMPLETED', ended_at: new Date('2025-01-02T00:01:00Z') }),
    );
    // A record only and a scheduled call are not placed calls.
    await seedCall(t.db.sql, o.organisationId, b, { created_at: new Date('2025-01-05T00:00:00Z'), call_status: null });
    await seedCall(t.db.sql, o.organisationId, b, {
      created_at: new Date('2025-01-06T00:00:00Z'),
      call_status: 'SCHEDULED',
    });
    await seedCall(
      t.db.sql,
      o.organisationId,
      c,
      placed('2025-01-03T00:00:00Z', { call_status: 'COMPLETED', ended_at: new Date('2025-01-03T00:01:00Z') }),
    );
    expect((await t.call(o.key, { method: 'GET', url: url(o) })).json().data.agentId).toBe(c);
    await updateAgentColumns(t.db.sql, c, { deleted_at: new Date() });
    expect((await t.call(o.key, { method: 'GET', url: url(o) })).json().data.agentId).toBe(a);
    expect((await t.call(o.key, { method: 'GET', url: url(org) })).statusCode).toBe(403);
  });
});
