/**
 * Campaigns over REST (spec document 2, "Campaigns (REST)"): create with every validation, list, read, partial
 * update, delete, duplicate, the follow-up preview, start / pause / complete, and contacts — 500-row adds with
 * E.164 normalisation and dedupe, CSV and XLSX uploads with bad rows, read as a job, and the upload's 409.
 */
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.ts';
import {
  seedOrganisation,
  seedPhoneNumber,
  seedWallet,
  updateAgentColumns,
  type SeededOrganisation,
} from './support/seed.ts';

let t: TestApp;
let org: SeededOrganisation;
let other: SeededOrganisation;
let agentId: string;
let sipAgentId: string;
const OUR_NUMBER = '+14155550110';
const INDIA_NUMBER_OF_CARRIER_D = '+918041234567';

const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  t = await startTestApp();
  org = await seedOrganisation(t.db.sql, 'Campaigner');
  other = await seedOrganisation(t.db.sql, 'Other');
  await seedWallet(t.db.sql, org.organisationId, { balanceMinor: 5_000 });
  await seedPhoneNumber(t.db.sql, org.organisationId, { provider: 'carrier-a', phoneNumber: OUR_NUMBER });
  await seedPhoneNumber(t.db.sql, org.organisationId, {
    provider: 'carrier-d',
    phoneNumber: INDIA_NUMBER_OF_CARRIER_D,
  });
  agentId = await createAgent(org);
  sipAgentId = await createAgent(org);
  await updateAgentColumns(t.db.sql, sipAgentId, { calling_number: null, telephony_provider: null });
}, 60_000);
afterAll(() => t?.close());

async function createAgent(owner: SeededOrganisation): Promise<string> {
  const res = await t.call(owner.key, {
    method: 'POST',
    url: '/api/v1/voice/agents',
    payload: { name: 'Caller', agentIdentity: 'You call people.', agentTask: 'Remind them.', greetingMessage: 'Hi' },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.id as string;
}

const base = () => ({
  name: 'Spring reminders',
  organisationId: org.organisationId,
  voiceAgentId: agentId,
  callStartTime: '09:00',
  callEndTime: '17:00',
});
const create = (body: Record<string, unknown>, key = org.key) =>
  t.call(key, { method: 'POST', url: '/api/v1/campaigns', payload: body });
const put = (id: string, body: Record<string, unknown>) =>
  t.call(org.key, { method: 'PUT', url: `/api/v1/campaigns/${id}`, payload: body });
const post = (id: string, action: string, body?: unknown) =>
  t.call(org.key, { method: 'POST', url: `/api/v1/campaigns/${id}/${action}`, payload: body as never });
const get = (url: string, key = org.key) => t.call(key, { method: 'GET', url: `/api/v1${url}` });
/** A created campaign's record (the API's JSON). */
interface Json {
  id: string;
  name: string;
  startDate: string;
  endDate: string;
  followUpRules: unknown;
  targetCountryCode: string;
}
async function created(body: Record<string, unknown> = {}): Promise<Json> {
  const res = await create({ ...base(), ...body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}
const fields = (res: { json(): { errors?: unknown } }) =>
  (res.json().errors as { field: string }[] | undefined)?.map((e) => e.field);

describe('POST /campaigns', () => {
  it('creates a DRAFT with the defaults and the agent’s own number', async () => {
    const campaign = await created({ description: 'Remind patients' });
    expect(campaign).toMatchObject({
      status: 'DRAFT',
      targetCountryCode: '+1',
      timezone: 'UTC',
      dialingNumber: OUR_NUMBER,
      retryCount: 2,
      cooldownSeconds: 3600,
      totalContacts: 0,
      completedCalls: 0,
      failedCalls: 0,
      inProgressCalls: 0,
      followUpRules: null,
      followUpRound: 0,
      voiceAgent: { id: agentId, callingNumber: OUR_NUMBER, telephonyProvider: 'carrier-a' },
      createdBy: { id: org.ownerId },
    });
  });

  it.each([
    [{ callStartTime: '9:00' }, 'callStartTime'],
    [{ callStartTime: '17:00', callEndTime: '09:00' }, 'callStartTime'],
    [{ callStartTime: '10:00', callEndTime: '10:00' }, 'callStartTime'],
    [{ callEndTime: '24:00' }, 'callEndTime'],
    [{ timezone: 'Mars/Olympus' }, 'timezone'],
    [{ startDate: '2020-01-01' }, 'startDate'],
    [{ endDate: day(-2) }, 'endDate'],
    [{ startDate: day(5), endDate: day(3) }, 'endDate'],
    [{ startDate: 'next tuesday' }, 'startDate'],
    [{ targetCountryCode: 'abc' }, 'targetCountryCode'],
    [{ dialingNumber: '12' }, 'dialingNumber'],
    [{ dialingNumber: '+14155559999' }, 'dialingNumber'],
    [{ dialingNumber: INDIA_NUMBER_OF_CARRIER_D }, 'dialingNumber'],
    [{ followUpRules: { enabled: 'yes' } }, 'followUpRules.enabled'],
    [{ followUpRules: { maxRounds: 0 } }, 'followUpRules.maxRounds'],
    [{ followUpRules: { results: ['maybe'] } }, 'followUpRules.results'],
    [{ followUpRules: { colour: 'red' } }, 'followUpRules.colour'],
    [{ retryCount: 11 }, 'retryCount'],
  ])('refuses %j with a 400 naming %s', async (change, field) => {
    const res = await create({ ...base(), ...change });
    expect(res.statusCode, res.body).toBe(400);
    expect(fields(res)).toContain(field);
  });

  it('refuses a missing field, naming it', async () => {
    const { callEndTime: _, ...body } = base();
    const res = await create(body);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('callEndTime');
  });

  it("reads today's date in the campaign's zone: a date that is today in Pacific/Kiritimati is accepted there", async () => {
    const kiritimatiToday = new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Kiritimati' }).format(new Date());
    const campaign = await created({
      timezone: 'Pacific/Kiritimati',
      startDate: kiritimatiToday,
      endDate: kiritimatiToday,
    });
    // A bare date is that whole day in the zone (UTC+14).
    expect(new Date(campaign.startDate).toISOString()).toBe(
      new Date(`${kiritimatiToday}T00:00:00+14:00`).toISOString(),
    );
    expect(new Date(campaign.endDate).getTime()).toBe(new Date(`${kiritimatiToday}T23:59:59.999+14:00`).getTime());
    const utcYesterday = day(-1);
    const res = await create({ ...base(), timezone: 'Pacific/Pago_Pago', startDate: utcYesterday });
    // Pago Pago (UTC-11) may still be on yesterday's date: accepted only when it is.
    const pagoToday = new Intl.DateTimeFormat('en-CA', { timeZone: 'Pacific/Pago_Pago' }).format(new Date());
    expect(res.statusCode, res.body).toBe(pagoToday <= utcYesterday ? 201 : 400);
  });

  it('fills followUpRules defaults and reads boolean strings', async () => {
    const campaign = await created({ followUpRules: { enabled: '0', autoStart: 'true', maxRounds: 3 } });
    expect(campaign.followUpRules).toEqual({
      enabled: false,
      results: ['no_answer', 'not_reached', 'voicemail'],
      maxRounds: 3,
      delayDays: 1,
      windowDays: 7,
      voiceAgentId: null,
      sipConfigurationId: null,
      autoStart: true,
    });
  });

  it('answers 404 for an agent or follow-up agent of another organisation, and 403 for a foreign organisationId', async () => {
    const foreignAgent = await createAgent(other);
    expect((await create({ ...base(), voiceAgentId: foreignAgent })).statusCode).toBe(404);
    expect((await create({ ...base(), followUpRules: { voiceAgentId: foreignAgent } })).statusCode).toBe(404);
    expect((await create({ ...base(), organisationId: other.organisationId })).statusCode).toBe(403);
  });

  it('answers 404 "no active outbound SIP configuration" for an agent without a carrier', async () => {
    const res = await create({ ...base(), voiceAgentId: sipAgentId });
    expect(res.statusCode, res.body).toBe(404);
    expect(res.json().message).toMatch(/no active outbound SIP configuration/);
  });
});

describe('reading, changing and deleting', () => {
  it('lists newest first with page and limit, and refuses a bad limit', async () => {
    const fresh = await seedOrganisation(t.db.sql, 'Lister');
    await seedPhoneNumber(t.db.sql, fresh.organisationId, { provider: 'carrier-b', phoneNumber: '+14155550999' });
    const agent = await createAgent(fresh);
    for (const name of ['one', 'two', 'three'])
      expect(
        (await create({ ...base(), organisationId: fresh.organisationId, voiceAgentId: agent, name }, fresh.key))
          .statusCode,
      ).toBe(201);
    const page = await get(`/campaigns/organisations/${fresh.organisationId}?page=1&limit=2`, fresh.key);
    expect(page.json().data).toMatchObject({ total: 3, totalPages: 2, currentPage: 1 });
    expect(page.json().data.campaigns.map((c: { name: string }) => c.name)).toEqual(['three', 'two']);
    expect((await get(`/campaigns/organisations/${fresh.organisationId}?limit=101`, fresh.key)).statusCode).toBe(400);
    expect((await get(`/campaigns/organisations/${fresh.organisationId}?page=0`, fresh.key)).statusCode).toBe(400);
    expect((await get(`/campaigns/organisations/${org.organisationId}`, fresh.key)).statusCode).toBe(403);
  });

  it('reads one: 403 for another organisation’s, 404 for none', async () => {
    const campaign = await created();
    expect((await get(`/campaigns/${campaign.id}`)).json().data.id).toBe(campaign.id);
    expect((await get(`/campaigns/${campaign.id}`, other.key)).statusCode).toBe(403);
    expect((await get('/campaigns/0123456789abcdef01234567')).statusCode).toBe(404);
  });

  it('updates partially; refuses status; keys of followUpRules left out are kept; null clears', async () => {
    const campaign = await created({ followUpRules: { maxRounds: 2 }, startDate: day(3) });
    const res = await put(campaign.id, { name: 'Renamed', followUpRules: { delayDays: 4 }, callEndTime: '18:30' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ name: 'Renamed', callEndTime: '18:30', callStartTime: '09:00' });
    expect(res.json().data.followUpRules).toMatchObject({ maxRounds: 2, delayDays: 4 });
    const refused = await put(campaign.id, { status: 'IN_PROGRESS' });
    expect(refused.statusCode).toBe(400);
    expect(fields(refused)).toEqual(['status']);
    expect((await put(campaign.id, { callStartTime: '19:00' })).statusCode).toBe(400);
    const cleared = await put(campaign.id, { startDate: null, followUpRules: null, dialingNumber: '' });
    expect(cleared.json().data).toMatchObject({ startDate: null, followUpRules: null, dialingNumber: null });
  });

  it('changes targetCountryCode only without contacts; +91 and 91 are the same', async () => {
    const campaign = await created({ targetCountryCode: '91' });
    expect(campaign.targetCountryCode).toBe('+91');
    expect((await put(campaign.id, { targetCountryCode: '+91' })).statusCode).toBe(200);
    expect((await post(campaign.id, 'contacts', { contacts: [{ phone: '98765 43210' }] })).statusCode).toBe(201);
    expect((await put(campaign.id, { targetCountryCode: '91' })).statusCode).toBe(200);
    const refused = await put(campaign.id, { targetCountryCode: '+44' });
    expect(refused.statusCode).toBe(409);
  });

  it('re-checks the caller number when the agent changes', async () => {
    const campaign = await created({ dialingNumber: OUR_NUMBER });
    const res = await put(campaign.id, { voiceAgentId: sipAgentId });
    expect(res.statusCode, res.body).toBe(404);
    const second = await createAgent(org);
    const moved = await put(campaign.id, { voiceAgentId: second });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().data).toMatchObject({ voiceAgentId: second, dialingNumber: OUR_NUMBER });
  });

  it('deletes: 400 in progress, 409 busy with an upload, else gone with its contacts', async () => {
    const campaign = await created();
    await post(campaign.id, 'contacts', { contacts: [{ phone: '+14155551000' }] });
    expect((await post(campaign.id, 'start')).statusCode).toBe(200);
    const refused = await t.call(org.key, { method: 'DELETE', url: `/api/v1/campaigns/${campaign.id}` });
    expect(refused.statusCode).toBe(400);
    expect((await post(campaign.id, 'pause')).json().data.status).toBe('PAUSED');
    const upload = await uploadCsv(campaign.id, 'phone\n+14155551001\n');
    expect(upload.statusCode).toBe(202);
    expect((await t.call(org.key, { method: 'DELETE', url: `/api/v1/campaigns/${campaign.id}` })).statusCode).toBe(409);
    await t.app.campaigns.uploads.runOnce();
    const deleted = await t.call(org.key, { method: 'DELETE', url: `/api/v1/campaigns/${campaign.id}` });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect((await get(`/campaigns/${campaign.id}`)).statusCode).toBe(404);
    const [left] = await t.db.sql<
      { n: number }[]
    >`select count(*)::int as n from campaign_contacts where campaign_id = ${campaign.id}`;
    expect(left!.n).toBe(0);
  });

  it('duplicates: fresh PENDING contacts, duplicates collapsed, follow-up rules not copied, past dates cleared', async () => {
    const campaign = await created({ followUpRules: { maxRounds: 2 }, startDate: day(0), endDate: day(10) });
    await post(campaign.id, 'contacts', {
      contacts: [{ phone: '+14155551100', name: 'Ann' }, { phone: '+14155551101' }, { phone: '(415) 555-1100' }],
    });
    await t.db.sql`update campaign_contacts set status = 'COMPLETED', attempts = 1 where campaign_id = ${campaign.id}`;
    // The start day is now past: the copy must not start in the past.
    await t.db.sql`update campaigns set start_date = now() - interval '2 days' where id = ${campaign.id}`;
    const res = await post(campaign.id, 'duplicate', { includeContacts: 'true' });
    expect(res.statusCode, res.body).toBe(201);
    const copy = res.json().data;
    expect(copy).toMatchObject({
      name: 'Spring reminders (copy)',
      status: 'DRAFT',
      copiedContacts: 2,
      scheduleCleared: true,
      startDate: null,
      followUpRules: null,
      dialingNumber: OUR_NUMBER,
      totalContacts: 2,
    });
    expect(copy.endDate).toBe(campaign.endDate);
    const contacts = (await get(`/campaigns/${copy.id}/contacts`)).json().data;
    expect(contacts.contacts.map((c: { status: string; attempts: number }) => [c.status, c.attempts])).toEqual([
      ['PENDING', 0],
      ['PENDING', 0],
    ]);
    const bare = await post(campaign.id, 'duplicate', { name: 'Bare', includeContacts: 0 });
    expect(bare.json().data).toMatchObject({ name: 'Bare', copiedContacts: 0, totalContacts: 0 });
    expect((await post(campaign.id, 'duplicate', { includeContacts: 'maybe' })).statusCode).toBe(400);
  });

  it('previews a follow-up round by call-result bucket', async () => {
    const campaign = await created({ followUpRules: { results: ['no_answer'] } });
    await post(campaign.id, 'contacts', {
      contacts: ['+14155551200', '+14155551201', '+14155551202', '+14155551203'].map((phone) => ({ phone })),
    });
    await t.db
      .sql`update campaign_contacts set status = 'COMPLETED', last_outcome = 'completed' where phone = '+14155551200' and campaign_id = ${campaign.id}`;
    await t.db
      .sql`update campaign_contacts set status = 'FAILED', last_outcome = 'no_answer' where phone in ('+14155551201', '+14155551202') and campaign_id = ${campaign.id}`;
    const preview = (await get(`/campaigns/${campaign.id}/follow-up`)).json().data;
    expect(preview).toMatchObject({
      campaignId: campaign.id,
      name: campaign.name,
      status: 'DRAFT',
      timezone: 'UTC',
      rulesSource: 'stored',
      buckets: { answered: 1, no_answer: 2, voicemail: 0, not_reached: 0 },
      pendingContacts: 1,
      wouldDial: 2,
      roundsCreated: [],
    });
  });
});

describe('start, pause, complete', () => {
  it('moves DRAFT → IN_PROGRESS ⇄ PAUSED → COMPLETED, and a future start is SCHEDULED', async () => {
    const campaign = await created();
    expect((await post(campaign.id, 'start')).statusCode).toBe(400); // no contacts
    await post(campaign.id, 'contacts', { contacts: [{ phone: '+14155551300' }] });
    expect((await post(campaign.id, 'pause')).statusCode).toBe(400);
    const started = (await post(campaign.id, 'start')).json().data;
    expect(started).toMatchObject({ status: 'IN_PROGRESS', pausedReason: null });
    expect(started.startedAt).not.toBeNull();
    expect((await post(campaign.id, 'start')).statusCode).toBe(400);
    expect((await post(campaign.id, 'pause')).json().data.status).toBe('PAUSED');
    expect((await post(campaign.id, 'start')).json().data.status).toBe('IN_PROGRESS');
    expect((await post(campaign.id, 'complete')).json().data.status).toBe('COMPLETED');
    expect((await post(campaign.id, 'start')).statusCode).toBe(400);
    expect((await post(campaign.id, 'contacts', { contacts: [{ phone: '+14155551301' }] })).statusCode).toBe(400);

    const later = await created({ startDate: day(3) });
    await post(later.id, 'contacts', { contacts: [{ phone: '+14155551302' }] });
    expect((await post(later.id, 'start')).json().data.status).toBe('SCHEDULED');
    expect((await post(later.id, 'complete')).json().data.status).toBe('CANCELLED');
  });

  it('refuses to start with 402 when the wallet cannot pay', async () => {
    const poor = await seedOrganisation(t.db.sql, 'Poor');
    await seedPhoneNumber(t.db.sql, poor.organisationId, { provider: 'carrier-a', phoneNumber: '+14155550777' });
    const agent = await createAgent(poor);
    const res = await create({ ...base(), organisationId: poor.organisationId, voiceAgentId: agent }, poor.key);
    const id = res.json().data.id;
    await t.call(poor.key, {
      method: 'POST',
      url: `/api/v1/campaigns/${id}/contacts`,
      payload: { contacts: [{ phone: '+14155551400' }] },
    });
    expect((await t.call(poor.key, { method: 'POST', url: `/api/v1/campaigns/${id}/start` })).statusCode).toBe(402);
  });

  it('reports statistics of a campaign not yet dialled', async () => {
    const campaign = await created();
    const res = await t.call(org.key, { method: 'GET', url: `/api/v1/campaigns/${campaign.id}/stats` });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ campaignId: campaign.id, contacts: { total: 0 }, callsPlaced: 0 });
  });
});

describe('contacts', () => {
  it('adds 500 in one request, normalising to E.164 with the campaign’s country code; duplicates are skipped and counted', async () => {
    const campaign = await created();
    const contacts = Array.from({ length: 500 }, (_, i) => ({
      phone: i % 2 ? `(415) 555-${String(2000 + i).padStart(4, '0')}` : `+1415555${String(2000 + i).padStart(4, '0')}`,
      name: `Person ${i}`,
      variables: { visit: `slot ${i}` },
    }));
    const res = await post(campaign.id, 'contacts', { contacts });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data).toMatchObject({ received: 500, added: 500, duplicates: 0, invalid: 0, totalContacts: 500 });
    const again = await post(campaign.id, 'contacts', {
      contacts: [{ phone: '4155552001' }, { phone: '+14155559000' }, { phone: '415 555 9000' }],
    });
    expect(again.json().data).toMatchObject({ received: 3, added: 1, duplicates: 2, invalid: 0, totalContacts: 501 });
    expect((await post(campaign.id, 'contacts', { contacts: [...contacts, contacts[0]] })).statusCode).toBe(400);
    const page = (await get(`/campaigns/${campaign.id}/contacts?page=2&limit=100`)).json().data;
    expect(page).toMatchObject({ total: 501, totalPages: 6, currentPage: 2 });
    expect(page.contacts[0]).toMatchObject({
      phone: '+14155552100',
      name: 'Person 100',
      variables: { visit: 'slot 100' },
      status: 'PENDING',
      attempts: 0,
      callStatus: null,
    });
    expect(page.contacts[1].phone).toBe('+14155552101');
  });

  it('reports invalid numbers row by row and still adds the rest', async () => {
    const campaign = await created({ targetCountryCode: '+91' });
    const res = await post(campaign.id, 'contacts', {
      contacts: [{ phone: '98765 43210' }, { phone: 'call me' }, { phone: '12' }, { phone: '+44 20 7946 0018' }],
    });
    expect(res.json().data).toMatchObject({ added: 2, invalid: 2, duplicates: 0 });
    expect(res.json().data.invalidRows.map((r: { row: number }) => r.row)).toEqual([2, 3]);
    const list = (await get(`/campaigns/${campaign.id}/contacts`)).json().data.contacts;
    expect(list.map((c: { phone: string }) => c.phone)).toEqual(['+919876543210', '+442079460018']);
  });

  it('reads a CSV upload as a job: bad rows reported by spreadsheet row, duplicates counted, columns mapped', async () => {
    const campaign = await created();
    const csv =
      'Mobile,Full Name,Plan,City\n' +
      '+14155553000,"Lee, Ann",gold,Austin\n' +
      '415-555-3001,Bo,silver,\n' +
      'not a number,Cy,gold,Reno\n' +
      '\n' +
      '(415) 555-3000,Ann again,gold,Austin\n' +
      '4155553002,Di,,Boise\n';
    const res = await uploadCsv(campaign.id, csv, '?fileName=list.csv&variableColumns=Plan');
    expect(res.statusCode, res.body).toBe(202);
    const upload = res.json().data;
    expect(upload).toMatchObject({ status: 'PENDING', fileName: 'list.csv', format: 'csv' });
    // Busy: a second upload is refused while the first waits.
    expect((await uploadCsv(campaign.id, 'phone\n+14155553009\n')).statusCode).toBe(409);
    expect((await post(campaign.id, 'duplicate', {})).statusCode).toBe(409);
    expect((await put(campaign.id, { name: 'Renamed mid-upload' })).statusCode).toBe(409);
    expect((await post(campaign.id, 'start')).statusCode).toBe(409);
    expect(await t.app.campaigns.uploads.runOnce()).toBe(1);
    const done = (await get(`/campaigns/${campaign.id}/uploads/${upload.id}`)).json().data;
    expect(done.status).toBe('DONE');
    expect(done.result).toMatchObject({
      received: 5,
      added: 3,
      duplicates: 1,
      invalid: 1,
      invalidRows: [{ row: 4, phone: 'not a number' }],
      columns: { phone: 'Mobile', name: 'Full Name', variables: ['Plan'] },
    });
    const list = (await get(`/campaigns/${campaign.id}`)).json().data;
    expect(list).toMatchObject({ totalContacts: 3, uploadedFileName: 'list.csv' });
    const contacts = (await get(`/campaigns/${campaign.id}/contacts`)).json().data.contacts;
    expect(contacts[0]).toMatchObject({ phone: '+14155553000', name: 'Lee, Ann', variables: { Plan: 'gold' } });
    expect(contacts[2]).toMatchObject({ phone: '+14155553002', variables: {} });
  });

  it('reads an XLSX upload, and fails an unreadable one with the reason', async () => {
    const campaign = await created();
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Contacts');
    sheet.addRow(['Phone', 'Name', 'Doctor']);
    sheet.addRow(['+14155554000', 'Eve', 'Dr Patel']);
    sheet.addRow([4155554001, 'Fay', 'Dr Chen']);
    sheet.addRow(['nope', 'Gus', 'Dr Chen']);
    const file = Buffer.from(await workbook.xlsx.writeBuffer());
    const xlsx = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
    const res = await t.call(org.key, {
      method: 'POST',
      url: `/api/v1/campaigns/${campaign.id}/contacts/upload`,
      headers: { 'content-type': xlsx },
      payload: file,
    });
    expect(res.statusCode, res.body).toBe(202);
    await t.app.campaigns.uploads.runOnce();
    const done = (await get(`/campaigns/${campaign.id}/uploads/${res.json().data.id}`)).json().data;
    expect(done.result).toMatchObject({ added: 2, invalid: 1, invalidRows: [{ row: 4 }] });
    const contacts = (await get(`/campaigns/${campaign.id}/contacts`)).json().data.contacts;
    expect(contacts[1]).toMatchObject({ phone: '+14155554001', name: 'Fay', variables: { Doctor: 'Dr Chen' } });

    const broken = await t.call(org.key, {
      method: 'POST',
      url: `/api/v1/campaigns/${campaign.id}/contacts/upload`,
      headers: { 'content-type': xlsx },
      payload: Buffer.from('not a zip'),
    });
    await t.app.campaigns.uploads.runOnce();
    const failed = (await get(`/campaigns/${campaign.id}/uploads/${broken.json().data.id}`)).json().data;
    expect(failed).toMatchObject({ status: 'FAILED' });
    expect(failed.error).toMatch(/not an XLSX workbook/);
    const noPhone = await uploadCsv(campaign.id, 'who,where\nAnn,Austin\n');
    await t.app.campaigns.uploads.runOnce();
    const refused = (await get(`/campaigns/${campaign.id}/uploads/${noPhone.json().data.id}`)).json().data;
    expect(refused.error).toMatch(/no phone column/);
    const wrongType = await t.call(org.key, {
      method: 'POST',
      url: `/api/v1/campaigns/${campaign.id}/contacts/upload`,
      headers: { 'content-type': 'application/json' },
      payload: { phone: '+14155554002' },
    });
    expect(wrongType.statusCode).toBe(400);
  });
});

function uploadCsv(campaignId: string, csv: string, query = '') {
  return t.call(org.key, {
    method: 'POST',
    url: `/api/v1/campaigns/${campaignId}/contacts/upload${query}`,
    headers: { 'content-type': 'text/csv' },
    payload: csv,
  });
}
