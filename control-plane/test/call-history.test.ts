/** /call-history: the organisation's calls for reports with every filter, the Excel export, and transcripts. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ExcelJS from 'exceljs';
import { newId } from '../src/db/ids.ts';
import { PUBLIC_URL, startTestApp, type TestApp } from './support/app.ts';
import { seedAgent, seedCall, seedOrganisation, type CallSeed, type SeededOrganisation } from './support/seed.ts';

let t: TestApp;
let org: SeededOrganisation;
let agentA: string;
let agentB: string;
const campaignId = newId();
const h: Record<string, string> = {};

const ended = (at: string, columns: CallSeed): CallSeed => ({
  created_at: new Date(at),
  dispatched_at: new Date(at),
  ended_at: new Date(Date.parse(at) + 60_000),
  call_status: 'COMPLETED',
  call_duration: 60_000,
  ...columns,
});

beforeAll(async () => {
  t = await startTestApp();
  org = await seedOrganisation(t.db.sql, 'History');
  agentA = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
  agentB = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
  const seed = async (name: string, agent: string, columns: CallSeed) => {
    h[name] = await seedCall(t.db.sql, org.organisationId, agent, columns);
  };
  await seed(
    'h1',
    agentA,
    ended('2025-03-01T10:00:00Z', {
      participant_name: 'Maria Lopez',
      phone_number: '+34600111222',
      call_outcome: 'completed',
      answered_at: new Date('2025-03-01T10:00:03Z'),
      overview: {
        score: 9,
        classification: 'Relevant',
        user_sentiment: 'positive',
        summary: ['Booked a visit', 'Asked about parking'],
      },
      recording_url: '/voice-sessions/x/recording',
      custom_variables: { crm: 'M-1' },
    }),
  );
  await seed(
    'h2',
    agentB,
    ended('2025-03-02T10:00:00Z', {
      participant_name: 'Ken Ito',
      phone_number: '+81312345678',
      call_direction: 'INBOUND',
      call_outcome: 'no_answer',
    }),
  );
  await seed(
    'h3',
    agentA,
    ended('2025-03-03T10:00:00Z', {
      participant_name: 'Lia',
      phone_number: null,
      call_type: 'chat',
      campaign_id: campaignId,
      call_outcome: 'busy',
    }),
  );
  await seed(
    'h4',
    agentA,
    ended('2025-03-04T10:00:00Z', { participant_name: 'Omar', call_status: 'FAILED', call_outcome: 'failed' }),
  );
  await seed('h5', agentA, ended('2025-03-05T10:00:00Z', { participant_name: 'Pia', call_outcome: 'voicemail' }));
  await seed(
    'h6',
    agentA,
    ended('2025-03-06T10:00:00Z', { participant_name: 'Quinn', call_outcome: 'rejected', room_name: 'CALL-QUINN-6' }),
  );
  await seedCall(t.db.sql, org.organisationId, agentA, {
    created_at: new Date('2025-03-07T10:00:00Z'),
    call_status: 'SCHEDULED',
  });
});
afterAll(() => t?.close());

const list = (query: Record<string, string> = {}, key = org.key) =>
  t.call(key, { method: 'GET', url: `/api/v1/call-history/sessions/organization/${org.organisationId}`, query });
const ids = async (query: Record<string, string>) =>
  (await list(query)).json().data.sessions.map((s: { id: string }) => s.id);

describe('GET /call-history/sessions/organization/{orgId}', () => {
  it('lists newest first with the listed fields and pagination.totalPages', async () => {
    const res = await list({ limit: '2', page: '2' });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data.pagination).toEqual({ page: 2, limit: 2, total: 6, totalPages: 3 });
    expect(data.sessions.map((s: { id: string }) => s.id)).toEqual([h.h4, h.h3]);
    const first = (await list()).json().data.sessions.at(-1);
    expect(first).toMatchObject({
      id: h.h1,
      roomName: `room-${h.h1}`,
      phoneNumber: '+34600111222',
      participantName: 'Maria Lopez',
      callDirection: 'OUTBOUND',
      createdAt: '2025-03-01T10:00:00.000Z',
      endedAt: '2025-03-01T10:01:00.000Z',
      callDuration: 60_000,
      callOutcome: 'completed',
      outcome: 'answered',
      overview: { score: 9, summary: ['Booked a visit', 'Asked about parking'] },
      customVariables: { crm: 'M-1' },
      recordingUrl: '/voice-sessions/x/recording',
    });
  });

  it('filters by outcome, direction, agent, campaigns, call type and dates (offsets, %2B, bare dates)', async () => {
    expect(await ids({ outcome: 'answered' })).toEqual([h.h1]);
    expect(await ids({ outcome: 'no_answer' })).toEqual([h.h2]);
    expect(await ids({ outcome: 'busy' })).toEqual([h.h3]);
    expect(await ids({ outcome: 'failed' })).toEqual([h.h4]);
    expect(await ids({ outcome: 'voicemail' })).toEqual([h.h5]);
    expect(await ids({ outcome: 'rejected' })).toEqual([h.h6]);
    expect(await ids({ callDirection: 'INBOUND' })).toEqual([h.h2]);
    expect(await ids({ agentId: agentB })).toEqual([h.h2]);
    expect(await ids({ campaignsOnly: 'true' })).toEqual([h.h3]);
    expect(await ids({ excludeCallType: 'chat' })).toEqual([h.h6, h.h5, h.h4, h.h2, h.h1]);
    // 15:30 at +05:30 is 10:00 UTC: h2 is in. A bare end date takes in that whole day.
    expect(await ids({ startDate: '2025-03-02T15:30:00+05:30', endDate: '2025-03-04' })).toEqual([h.h4, h.h3, h.h2]);
    const encoded = await t.call(org.key, {
      method: 'GET',
      url: `/api/v1/call-history/sessions/organization/${org.organisationId}?startDate=2025-03-02T15:30:01%2B05:30&endDate=2025-03-04T10:00:00Z`,
    });
    expect(encoded.json().data.sessions.map((s: { id: string }) => s.id)).toEqual([h.h4, h.h3]);
    // An unescaped + arrives as a space, and is read as the offset it was.
    const unescaped = await t.call(org.key, {
      method: 'GET',
      url: `/api/v1/call-history/sessions/organization/${org.organisationId}?startDate=2025-03-05T15:30:00+05:30`,
    });
    expect(unescaped.json().data.sessions.map((s: { id: string }) => s.id)).toEqual([h.h6, h.h5]);
  });

  it('searches the name, the number (by its digits) and the Call ID or session id', async () => {
    expect(await ids({ search: 'maria' })).toEqual([h.h1]);
    expect(await ids({ search: '3 1234-5678' })).toEqual([h.h2]);
    expect(await ids({ search: 'call-quinn' })).toEqual([h.h6]);
    expect(await ids({ search: h.h5! })).toEqual([h.h5]);
    expect(await ids({ search: '100%' })).toEqual([]);
  });

  it('refuses a limit over 100, a bad date or enum (naming them), and another organisation', async () => {
    const tooMany = await list({ limit: '101' });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().errors[0].field).toBe('limit');
    const badDate = await list({ startDate: 'last tuesday' });
    expect(badDate.json().errors[0].field).toBe('startDate');
    expect((await list({ outcome: 'maybe' })).json().errors[0].field).toBe('outcome');
    const other = await seedOrganisation(t.db.sql, 'Other');
    expect((await list({}, other.key)).statusCode).toBe(403);
  });
});

async function workbookOf(body: Buffer): Promise<ExcelJS.Worksheet> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(body as never);
  return workbook.getWorksheet('Calls')!;
}

describe('Excel export', () => {
  it('streams one row per call, with the same filters', async () => {
    const res = await t.call(org.key, {
      method: 'GET',
      url: `/api/v1/call-history/sessions/organization/${org.organisationId}/export`,
      query: { excludeCallType: 'chat' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="calls-\d{4}-\d{2}-\d{2}\.xlsx"$/);
    const sheet = await workbookOf(res.rawPayload);
    expect(sheet.rowCount).toBe(1 + 5);
    expect((sheet.getRow(1).values as unknown[]).slice(1)).toEqual([
      'Call ID',
      'Session ID',
      'Started (UTC)',
      'Ended (UTC)',
      'Name',
      'Phone',
      'Direction',
      'Call type',
      'Agent',
      'Status',
      'Outcome',
      'Duration (s)',
      'Score',
      'Classification',
      'Sentiment',
      'Summary',
      'Campaign ID',
      'Recording',
      'Custom variables',
    ]);
    const maria = sheet.getRow(6).values as unknown[];
    expect(maria.slice(1)).toEqual([
      `room-${h.h1}`,
      h.h1,
      new Date('2025-03-01T10:00:00Z'),
      new Date('2025-03-01T10:01:00Z'),
      'Maria Lopez',
      '+34600111222',
      'OUTBOUND',
      'sip',
      'VOICE agent',
      'COMPLETED',
      'completed',
      60,
      9,
      'Relevant',
      'positive',
      'Booked a visit\nAsked about parking',
      undefined,
      `${PUBLIC_URL}/api/v1/voice-sessions/x/recording`,
      '{"crm":"M-1"}',
    ]);
  });

  it('holds at most 10,000 calls, the newest', async () => {
    const bulk = await seedOrganisation(t.db.sql, 'Bulk');
    const agent = await seedAgent(t.db.sql, bulk.organisationId, 'VOICE');
    await t.db
      .sql`insert into call_records (id, organisation_id, agent_id, room_name, call_type, call_status, created_at)
      select substr(md5(random()::text || g::text), 1, 24), ${bulk.organisationId}, ${agent}, 'bulk-' || g, 'sip', 'COMPLETED',
             timestamptz '2025-01-01T00:00:00Z' + make_interval(secs => g)
        from generate_series(1, 10003) g`;
    const res = await t.call(bulk.key, {
      method: 'GET',
      url: `/api/v1/call-history/sessions/organization/${bulk.organisationId}/export`,
    });
    expect(res.statusCode).toBe(200);
    const sheet = await workbookOf(res.rawPayload);
    expect(sheet.rowCount).toBe(1 + 10_000);
    expect(sheet.getRow(2).getCell(1).value).toBe('bulk-10003');
    expect(sheet.getRow(10_001).getCell(1).value).toBe('bulk-4');
  });

  it('checks the filters before sending anything', async () => {
    const res = await t.call(org.key, {
      method: 'GET',
      url: `/api/v1/call-history/sessions/organization/${org.organisationId}/export`,
      query: { endDate: '03/04/2025' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].field).toBe('endDate');
  });
});

describe('transcripts', () => {
  it('returns every line in spoken order; 404 for a session id or another organisation', async () => {
    const sql = t.db.sql;
    const line = (text: string, speaker: string, start: number, end: number) =>
      sql`insert into call_transcripts (id, organisation_id, call_id, speaker, text, start_ms, end_ms) values (${newId()}, ${org.organisationId}, ${h.h1!}, ${speaker}, ${text}, ${start}, ${end})`;
    await line('Three', 'assistant', 5_000, 5_000);
    await line('One', 'assistant', 0, 0);
    await line('Two', 'user', 1_200, 4_000);
    const res = await t.call(org.key, {
      method: 'GET',
      url: `/api/v1/call-history/sessions/room/room-${h.h1}/transcripts`,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ roomName: `room-${h.h1}`, sessionId: h.h1 });
    expect(
      res
        .json()
        .data.transcripts.map((l: { text: string; speaker: string; startMs: number }) => [
          l.speaker,
          l.text,
          l.startMs,
        ]),
    ).toEqual([
      ['assistant', 'One', 0],
      ['user', 'Two', 1_200],
      ['assistant', 'Three', 5_000],
    ]);
    expect(
      (await t.call(org.key, { method: 'GET', url: `/api/v1/call-history/sessions/room/${h.h1}/transcripts` }))
        .statusCode,
    ).toBe(404);
    const other = await seedOrganisation(t.db.sql, 'Snoop');
    expect(
      (await t.call(other.key, { method: 'GET', url: `/api/v1/call-history/sessions/room/room-${h.h1}/transcripts` }))
        .statusCode,
    ).toBe(404);
  });
});
