/**
 * The campaign dialler driven by a simulated clock (docs/architecture.md §13), placing real calls through the one
 * launch path against the carrier simulator (carrier-b's API and phones), a real engine and its workers: the daily
 * window in the campaign's time zone across a daylight-saving change, two zones at one instant, startDate and
 * endDate, retries after the cooldown, pause and resume, an answered call, completion, the plan's concurrent-call
 * limit, the wallet running dry, and two dialler instances on one database placing every call exactly once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CampaignDialler, PLACEMENTS_AT_ONCE, type PassReport } from '../src/campaigns/dialler.ts';
import { OUR_NUMBERS, PhoneCallRig, waitFor } from './support/phone-call-rig.ts';
import { seedWallet, updateAgentColumns } from './support/seed.ts';

/** The organisation's concurrent-call limit in this file (PARLEY_DEFAULT_CONCURRENT_CALLS). */
const LINES = 3;
const OUR_NUMBER = OUR_NUMBERS['carrier-b'];

let rig: PhoneCallRig;
let agentId: string;
let clock = new Date('2027-03-13T12:00:00Z');
let dialler: CampaignDialler;
let phoneSeq = 0;

beforeAll(async () => {
  rig = await PhoneCallRig.start({ defaultConcurrentCalls: LINES });
  agentId = await rig.createAgent(OUR_NUMBER);
  dialler = newDialler('first');
}, 120_000);
afterAll(async () => {
  await rig?.close();
}, 60_000);

/** A dialler on the simulated clock; one placement at a time unless told, so the simulator's scripted answers go to the contacts in order. */
function newDialler(instanceId: string, placementsAtOnce = 1): CampaignDialler {
  return new CampaignDialler(rig.db.sql, rig.app.phoneCalls.placement, {
    admission: { defaultConcurrentCalls: LINES },
    now: () => clock,
    instanceId,
    placementsAtOnce,
  });
}

const api = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
  rig.app.inject({
    method,
    url: `/api/v1${url}`,
    headers: { authorization: `Bearer ${rig.org.key}` },
    payload: payload as never,
  });

/** A campaign of fresh numbers, started; answers its id and the contacts' numbers. */
async function campaign(body: Record<string, unknown>, contacts: number): Promise<{ id: string; phones: string[] }> {
  const res = await api('POST', '/campaigns', {
    name: 'Dialler test',
    organisationId: rig.org.organisationId,
    voiceAgentId: agentId,
    callStartTime: '09:00',
    callEndTime: '17:00',
    retryCount: 0,
    ...body,
  });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().data.id as string;
  const phones = Array.from({ length: contacts }, () => `+1415555${String(7000 + phoneSeq++).padStart(4, '0')}`);
  const added = await api('POST', `/campaigns/${id}/contacts`, {
    contacts: phones.map((phone, i) => ({ phone, name: `Person ${i}`, variables: { slot: `slot ${i}` } })),
  });
  expect(added.json().data.added, added.body).toBe(contacts);
  const started = await api('POST', `/campaigns/${id}/start`);
  expect(started.statusCode, started.body).toBe(200);
  return { id, phones };
}

const read = async (id: string) => (await api('GET', `/campaigns/${id}`)).json().data;
const contactsOf = async (id: string) =>
  rig.db.sql<
    {
      phone: string;
      status: string;
      attempts: number;
      last_outcome: string | null;
      next_attempt_at: Date | null;
      call_id: string | null;
    }[]
  >`
    select phone, status, attempts, last_outcome, next_attempt_at, call_id from campaign_contacts
     where campaign_id = ${id} order by position`;

/** Waits until every call the pass placed has ended (the carrier's status callback reached Parley). */
async function ended(report: PassReport): Promise<void> {
  for (const callId of report.placed)
    await waitFor(
      () => rig.record(callId),
      (r) => r.ended_at !== null,
      `call ${callId} to end`,
    );
}

/** The simulator's call to `phone` (carrier-b keeps the + of E.164). */
const simCallTo = (phone: string) =>
  waitFor(
    () => rig.sim.calls.find((c) => c.to === phone || `+${c.to}` === phone),
    (call) => call !== undefined,
    `a call to ${phone}`,
  ).then((call) => call!);

async function pass(at?: string): Promise<PassReport> {
  if (at) clock = new Date(at);
  return dialler.runOnce();
}

/** Leaves the campaign out of later passes. */
async function finish(id: string) {
  const res = await api('POST', `/campaigns/${id}/complete`);
  expect([200, 400]).toContain(res.statusCode);
}

describe('the campaign dialler', () => {
  it('dials only inside the window in the campaign’s zone, across the spring-forward change', async () => {
    const { id, phones } = await campaign({ timezone: 'America/New_York' }, 2);
    rig.sim.answerNextWith('busy', 'busy');
    // Saturday 08:59 EST: closed.
    expect((await pass('2027-03-13T13:59:00Z')).placed).toEqual([]);
    // 09:00 EST: one call per contact, within the lines.
    const saturday = await pass('2027-03-13T14:00:00Z');
    expect(saturday.placed).toHaveLength(2);
    await ended(saturday);
    const placed = await rig.db.sql<
      { phone_number: string; campaign_id: string; source: string; custom_variables: Record<string, unknown> }[]
    >`
      select phone_number, campaign_id, source, custom_variables from call_records where id = any(${saturday.placed}) order by phone_number`;
    expect(placed.map((r) => r.phone_number)).toEqual(phones);
    expect(placed[0]).toMatchObject({
      campaign_id: id,
      source: 'campaign',
      custom_variables: { slot: 'slot 0', campaignId: id },
    });
    await pass('2027-03-13T14:01:00Z');
    expect((await contactsOf(id)).map((c) => [c.status, c.last_outcome])).toEqual([
      ['FAILED', 'busy'],
      ['FAILED', 'busy'],
    ]);
    expect(await read(id)).toMatchObject({ status: 'COMPLETED', failedCalls: 2, totalContacts: 2 });

    // The day of the change: 09:00 is 13:00 UTC now (EDT).
    const sunday = await campaign({ timezone: 'America/New_York' }, 1);
    rig.sim.answerNextWith('busy');
    expect((await pass('2027-03-14T12:59:00Z')).placed).toEqual([]);
    expect((await pass('2027-03-14T21:00:00Z')).placed).toEqual([]);
    const open = await pass('2027-03-14T13:00:00Z');
    expect(open.placed).toHaveLength(1);
    await ended(open);
    await pass('2027-03-14T13:01:00Z');
    expect((await read(sunday.id)).status).toBe('COMPLETED');
  }, 60_000);

  it('dials each campaign by its own zone at one instant, and keeps to startDate and endDate', async () => {
    const kolkata = await campaign({ timezone: 'Asia/Kolkata' }, 1);
    const newYork = await campaign({ timezone: 'America/New_York' }, 1);
    rig.sim.answerNextWith('busy');
    // 04:00 UTC: 09:30 in Kolkata, midnight in New York.
    const report = await pass('2027-03-15T04:00:00Z');
    expect(report.placed).toHaveLength(1);
    expect((await contactsOf(kolkata.id))[0]!.call_id).toBe(report.placed[0]);
    expect((await contactsOf(newYork.id))[0]!.status).toBe('PENDING');
    await ended(report);
    await finish(newYork.id);
    await pass('2027-03-15T04:01:00Z');
    expect((await read(kolkata.id)).status).toBe('COMPLETED');

    const dated = await campaign({ timezone: 'UTC', startDate: '2027-03-20', endDate: '2027-03-21' }, 2);
    expect((await read(dated.id)).status).toBe('SCHEDULED');
    expect((await pass('2027-03-19T10:00:00Z')).placed).toEqual([]);
    expect((await read(dated.id)).status).toBe('SCHEDULED');
    rig.sim.answerNextWith('no-answer', 'no-answer');
    await api('PUT', `/campaigns/${dated.id}`, { retryCount: 3, cooldownSeconds: 86_400 * 5 });
    const first = await pass('2027-03-20T10:00:00Z');
    expect(first.moved).toContainEqual({ id: dated.id, status: 'IN_PROGRESS' });
    expect(first.placed).toHaveLength(2);
    await ended(first);
    await pass('2027-03-20T10:01:00Z');
    expect((await contactsOf(dated.id)).map((c) => c.status)).toEqual(['PENDING', 'PENDING']);
    // Past endDate the campaign is over, tries left or not.
    const over = await pass('2027-03-22T10:00:00Z');
    expect(over.placed).toEqual([]);
    expect(over.moved).toContainEqual({ id: dated.id, status: 'COMPLETED' });
  }, 60_000);

  it('retries no_answer and busy after the cooldown, up to retryCount, then fails the contact', async () => {
    const { id } = await campaign(
      { timezone: 'UTC', callStartTime: '00:00', callEndTime: '23:59', retryCount: 2, cooldownSeconds: 600 },
      1,
    );
    rig.sim.answerNextWith('no-answer', 'busy', 'failed');
    const tries: string[] = [];
    const first = await pass('2027-04-01T10:00:00Z');
    expect(first.placed).toHaveLength(1);
    tries.push(...first.placed);
    await ended(first);
    await pass('2027-04-01T10:01:00Z');
    let [contact] = await contactsOf(id);
    expect(contact).toMatchObject({ status: 'PENDING', attempts: 1, last_outcome: 'no_answer' });
    expect(contact!.next_attempt_at!.toISOString()).toBe('2027-04-01T10:11:00.000Z');
    // Still cooling down.
    expect((await pass('2027-04-01T10:10:59Z')).placed).toEqual([]);
    const second = await pass('2027-04-01T10:11:00Z');
    expect(second.placed).toHaveLength(1);
    tries.push(...second.placed);
    await ended(second);
    await pass('2027-04-01T10:12:00Z');
    expect((await contactsOf(id))[0]).toMatchObject({ status: 'PENDING', attempts: 2, last_outcome: 'busy' });
    const third = await pass('2027-04-01T10:30:00Z');
    tries.push(...third.placed);
    await ended(third);
    await pass('2027-04-01T10:31:00Z');
    [contact] = await contactsOf(id);
    expect(contact).toMatchObject({ status: 'FAILED', attempts: 3, last_outcome: 'failed', next_attempt_at: null });
    expect(new Set(tries).size).toBe(3);
    expect((await pass('2027-04-01T12:00:00Z')).placed).toEqual([]);
    const stats = (await api('GET', `/campaigns/${id}/stats`)).json().data;
    expect(stats).toMatchObject({
      status: 'COMPLETED',
      contacts: { total: 1, failed: 1 },
      attempts: 3,
      callsPlaced: 3,
      callsAnswered: 0,
      outcomes: { failed: 1 },
    });
  }, 60_000);

  it('pauses and resumes; an answered call completes its contact; counts are live', async () => {
    const { id, phones } = await campaign({ timezone: 'UTC', callStartTime: '00:00', callEndTime: '23:59' }, 2);
    expect((await api('POST', `/campaigns/${id}/pause`)).json().data.status).toBe('PAUSED');
    expect((await pass('2027-04-02T10:00:00Z')).placed).toEqual([]);
    expect((await api('POST', `/campaigns/${id}/start`)).json().data.status).toBe('IN_PROGRESS');
    rig.sim.answerNextWith('answer', 'busy');
    const report = await pass('2027-04-02T10:01:00Z');
    expect(report.placed).toHaveLength(2);
    const answered = await simCallTo(phones[0]!);
    const stream = await answered.stream;
    await stream.until(() => stream.receivedAudio().length > 4_000, 'the greeting', 20_000);
    expect(await read(id)).toMatchObject({ inProgressCalls: 2, totalContacts: 2 });
    await answered.hangup();
    await ended(report);
    await pass('2027-04-02T10:02:00Z');
    const contacts = await contactsOf(id);
    expect(contacts.map((c) => c.status).sort()).toEqual(['COMPLETED', 'FAILED']);
    expect(contacts.find((c) => c.status === 'COMPLETED')!.last_outcome).toBe('completed');
    expect(await read(id)).toMatchObject({
      status: 'COMPLETED',
      completedCalls: 1,
      failedCalls: 1,
      inProgressCalls: 0,
    });
  }, 60_000);

  it('never has more calls live than the plan allows', async () => {
    const { id, phones } = await campaign({ timezone: 'UTC', callStartTime: '00:00', callEndTime: '23:59' }, 5);
    rig.sim.answerNextWith('answer', 'answer', 'answer', 'busy', 'busy');
    const first = await pass('2027-04-03T10:00:00Z');
    expect(first.placed).toHaveLength(LINES);
    const held = [await simCallTo(phones[0]!), await simCallTo(phones[1]!), await simCallTo(phones[2]!)];
    for (const call of held) await call.stream;
    expect((await pass('2027-04-03T10:01:00Z')).placed).toEqual([]);
    await held[0]!.hangup();
    await ended({ ...first, placed: [first.placed[0]!] });
    const next = await pass('2027-04-03T10:02:00Z');
    expect(next.placed).toHaveLength(1);
    const [live] = await rig.db.sql<{ n: number }[]>`
      select count(*)::int as n from call_records where organisation_id = ${rig.org.organisationId} and ended_at is null`;
    expect(live!.n).toBeLessThanOrEqual(LINES);
    for (const call of held.slice(1)) await call.hangup();
    await ended(first);
    await ended(next);
    const last = await pass('2027-04-03T10:03:00Z');
    expect(last.placed).toHaveLength(1);
    await ended(last);
    await pass('2027-04-03T10:04:00Z');
    expect((await read(id)).status).toBe('COMPLETED');
  }, 90_000);

  it('keeps to the number’s own line cap, two instances counting under its lock', async () => {
    const organisationId = rig.org.organisationId;
    const numbers = (await api('GET', `/telephony/numbers/${organisationId}`)).json().data as {
      id: string;
      phoneNumber: string;
      maxConcurrentCalls: number | null;
    }[];
    const number = numbers.find((n) => n.phoneNumber === OUR_NUMBER)!;
    expect(number.maxConcurrentCalls).toBeNull();
    const limit = (maxConcurrentCalls: unknown) =>
      api('PUT', `/telephony/numbers/${number.id}/call-limit`, { organisationId, maxConcurrentCalls });
    const refused = await limit(0);
    expect(refused.statusCode, refused.body).toBe(400);
    expect(refused.body).toMatch(/maxConcurrentCalls/);
    const set = await limit(2);
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().data.maxConcurrentCalls).toBe(2);
    try {
      // Within the plan's 3 lines, the number's 2 bound the campaign.
      const { id } = await campaign({ timezone: 'UTC', callStartTime: '00:00', callEndTime: '23:59' }, 4);
      rig.sim.answerNextWith('answer', 'answer', 'busy', 'busy');
      clock = new Date('2027-04-03T12:00:00Z');
      const reports = await Promise.all(
        ['line-a', 'line-b'].map((name) => newDialler(name, PLACEMENTS_AT_ONCE).runOnce()),
      );
      const first = reports.flatMap((r) => r.placed);
      expect(first).toHaveLength(2);
      // Whatever either instance leased beyond the line went back untouched.
      expect((await contactsOf(id)).filter((c) => c.status === 'PENDING').map((c) => [c.attempts, c.call_id])).toEqual([
        [0, null],
        [0, null],
      ]);
      const held = await Promise.all(
        first.map(async (callId) => simCallTo(String((await rig.record(callId)).phone_number))),
      );
      for (const call of held) await call.stream;
      // The number's lines are full for every placement, not only the dialler's.
      const direct = await rig.place({ agentId, participantNumber: rig.nextNumber(), callingNumber: OUR_NUMBER });
      expect(direct.statusCode, direct.body).toBe(409);
      expect(direct.json().code).toBe('limit_reached');
      expect((await pass('2027-04-03T12:01:00Z')).placed).toEqual([]);
      await held[0]!.hangup();
      await ended({ ...reports[0]!, placed: [first[0]!] });
      const next = await pass('2027-04-03T12:02:00Z');
      expect(next.placed).toHaveLength(1);
      await ended(next);
      const last = await pass('2027-04-03T12:03:00Z');
      expect(last.placed).toHaveLength(1);
      await ended(last);
      await held[1]!.hangup();
      await ended({ ...reports[0]!, placed: first });
      await pass('2027-04-03T12:04:00Z');
      expect(await read(id)).toMatchObject({ status: 'COMPLETED', completedCalls: 2, failedCalls: 2 });
    } finally {
      const cleared = await limit(null);
      expect(cleared.json().data.maxConcurrentCalls).toBeNull();
    }
  }, 90_000);

  it('stops when the wallet can no longer pay, and says so on the campaign', async () => {
    const { id } = await campaign({ timezone: 'UTC', callStartTime: '00:00', callEndTime: '23:59' }, 1);
    await seedWallet(rig.db.sql, rig.org.organisationId, { balanceMinor: 0 });
    try {
      const report = await pass('2027-04-04T10:00:00Z');
      expect(report.placed).toEqual([]);
      expect(report.paused).toContain(id);
      const paused = await read(id);
      expect(paused.status).toBe('PAUSED');
      expect(paused.pausedReason).toMatch(/^Stopped by the dialler: /);
      expect((await contactsOf(id))[0]).toMatchObject({ status: 'PENDING', attempts: 0 });
    } finally {
      await seedWallet(rig.db.sql, rig.org.organisationId, { balanceMinor: 5_000 });
    }
    const resumed = (await api('POST', `/campaigns/${id}/start`)).json().data;
    expect(resumed).toMatchObject({ status: 'IN_PROGRESS', pausedReason: null });
    await finish(id);
  }, 30_000);

  it('two dialler instances on one database place every call exactly once', async () => {
    const { id, phones } = await campaign({ timezone: 'UTC', callStartTime: '00:00', callEndTime: '23:59' }, 9);
    rig.sim.answerNextWith(...phones.map(() => 'busy' as const));
    // Both with the default placements at once: the lines race inside each instance too.
    const first = newDialler('first-parallel', PLACEMENTS_AT_ONCE);
    const second = newDialler('second', PLACEMENTS_AT_ONCE);
    clock = new Date('2027-04-05T10:00:00Z');
    const placed: string[] = [];
    for (let round = 0; round < 10 && placed.length < phones.length; round++) {
      const reports = await Promise.all([first.runOnce(), second.runOnce()]);
      for (const report of reports) {
        placed.push(...report.placed);
        await ended(report);
      }
    }
    expect(placed).toHaveLength(phones.length);
    expect(new Set(placed).size).toBe(phones.length);
    const calls = await rig.db.sql<{ phone_number: string; n: number }[]>`
      select phone_number, count(*)::int as n from call_records where campaign_id = ${id} group by phone_number order by phone_number`;
    expect(calls).toEqual(phones.map((phone) => ({ phone_number: phone, n: 1 })));
    const dialled = rig.sim.calls.filter((c) => phones.some((p) => c.to === p || `+${c.to}` === p));
    expect(dialled).toHaveLength(phones.length);
    await pass('2027-04-05T10:05:00Z');
    expect(await read(id)).toMatchObject({ status: 'COMPLETED', failedCalls: phones.length });
  }, 90_000);

  it('creates a follow-up round from the rules once the campaign completes, and dials it in its window', async () => {
    const { id, phones } = await campaign(
      {
        timezone: 'UTC',
        callStartTime: '00:00',
        callEndTime: '23:59',
        followUpRules: { results: ['no_answer'], delayDays: 2, windowDays: 3, autoStart: 'true' },
      },
      3,
    );
    rig.sim.answerNextWith('no-answer', 'busy', 'no-answer');
    const report = await pass('2027-04-06T10:00:00Z');
    expect(report.placed).toHaveLength(3);
    await ended(report);
    const completed = await pass('2027-04-06T10:05:00Z');
    expect(completed.moved).toContainEqual({ id, status: 'COMPLETED' });
    expect(completed.followUps).toHaveLength(1);
    const roundId = completed.followUps[0]!;
    const round = await read(roundId);
    expect(round).toMatchObject({
      status: 'SCHEDULED',
      parentCampaignId: id,
      followUpRound: 1,
      totalContacts: 2,
      voiceAgentId: agentId,
      dialingNumber: OUR_NUMBER,
      startDate: '2027-04-08T10:05:00.000Z',
      endDate: '2027-04-11T10:05:00.000Z',
    });
    expect((await contactsOf(roundId)).map((c) => [c.phone, c.status, c.attempts])).toEqual([
      [phones[0], 'PENDING', 0],
      [phones[2], 'PENDING', 0],
    ]);
    const parent = await read(id);
    expect(parent.followUpDecidedAt).not.toBeNull();
    const preview = (await api('GET', `/campaigns/${id}/follow-up`)).json().data;
    expect(preview).toMatchObject({ buckets: { no_answer: 2, not_reached: 1 }, wouldDial: 2 });
    expect(preview.roundsCreated).toEqual([{ id: roundId, status: 'SCHEDULED', followUpRound: 1 }]);
    // Decided once: later passes create nothing more.
    expect((await pass('2027-04-07T10:00:00Z')).followUps).toEqual([]);
    rig.sim.answerNextWith('busy', 'busy');
    const second = await pass('2027-04-08T10:06:00Z');
    expect(second.moved).toContainEqual({ id: roundId, status: 'IN_PROGRESS' });
    expect(second.placed).toHaveLength(2);
    await ended(second);
    const last = await pass('2027-04-08T10:07:00Z');
    expect(last.moved).toContainEqual({ id: roundId, status: 'COMPLETED' });
    // Round 1 was the last one (maxRounds 1).
    expect(last.followUps).toEqual([]);
    expect((await read(roundId)).followUpDecidedAt).not.toBeNull();
  }, 60_000);

  it('fails a contact its caller may not reach, and pauses a campaign whose agent can no longer call', async () => {
    const { id } = await campaign({ timezone: 'UTC', callStartTime: '00:00', callEndTime: '23:59' }, 1);
    // A number abroad: the caller number's calling scope (SAME_COUNTRY) refuses it; the others are still called.
    await api('POST', `/campaigns/${id}/contacts`, { contacts: [{ phone: '+44 20 7946 0018' }] });
    rig.sim.answerNextWith('busy');
    const report = await pass('2027-04-07T10:00:00Z');
    expect(report.placed).toHaveLength(1);
    await ended(report);
    const abroad = (await contactsOf(id)).find((c) => c.phone === '+442079460018')!;
    expect(abroad).toMatchObject({ status: 'FAILED', last_outcome: 'not_placed', call_id: expect.any(String) });
    const [reason] = await rig.db.sql<{ failure_reason: string }[]>`
      select failure_reason from campaign_contacts where phone = '+442079460018' and campaign_id = ${id}`;
    expect(reason!.failure_reason).toMatch(/calling scope/);

    const lost = await rig.createAgent(OUR_NUMBER);
    const stopped = await campaign(
      { timezone: 'UTC', callStartTime: '00:00', callEndTime: '23:59', voiceAgentId: lost },
      2,
    );
    await updateAgentColumns(rig.db.sql, lost, { is_active: false });
    const refused = await pass('2027-04-07T10:05:00Z');
    expect(refused.placed).toEqual([]);
    const paused = await read(stopped.id);
    expect(paused.status).toBe('PAUSED');
    expect(paused.pausedReason).toMatch(/^Stopped by the dialler: .*not active/);
    expect((await contactsOf(stopped.id)).map((c) => [c.status, c.attempts])).toEqual([
      ['PENDING', 0],
      ['PENDING', 0],
    ]);
    await finish(stopped.id);
  }, 60_000);

  it('runs a pass at a window’s opening rather than waiting out its interval', async () => {
    const { id } = await campaign({ timezone: 'UTC', callStartTime: '09:00', callEndTime: '17:00' }, 1);
    rig.sim.answerNextWith('busy');
    // The dialler's clock reaches 09:00 400 ms after it starts; its interval is a minute.
    const opening = Date.parse('2027-04-08T09:00:00Z');
    const startedAt = Date.now() + 400;
    const timed = new CampaignDialler(rig.db.sql, rig.app.phoneCalls.placement, {
      admission: { defaultConcurrentCalls: LINES },
      now: () => new Date(opening + (Date.now() - startedAt)),
      instanceId: 'timed',
      intervalMs: 60_000,
    }).start();
    try {
      const [record] = await waitFor(
        () => rig.db.sql<{ id: string; created_at: Date }[]>`
          select id, created_at from call_records where campaign_id = ${id}`,
        (rows) => rows.length > 0,
        'the call at the opening',
        30_000,
      );
      // Placed after the opening, and long before the interval would have come round.
      expect(record!.created_at.getTime()).toBeGreaterThanOrEqual(startedAt - 50);
      expect(record!.created_at.getTime() - startedAt).toBeLessThan(30_000);
      await expect.poll(() => timed.health().callsPlaced, { timeout: 20_000 }).toBe(1);
    } finally {
      await timed.stop();
    }
    await ended({
      settled: 0,
      placed: [(await contactsOf(id))[0]!.call_id!],
      paused: [],
      moved: [],
      followUps: [],
      capped: false,
    });
    await finish(id);
  }, 60_000);

  it('reports its health at /webhooks/campaign/status', async () => {
    const stopped = (await api('GET', '/webhooks/campaign/status')).json();
    expect(stopped).toMatchObject({ success: true, status: 'STOPPED', nextRunAt: null });
    rig.app.campaigns.dialler.start();
    try {
      const running = (await api('GET', '/webhooks/campaign/status')).json();
      expect(running).toMatchObject({ success: true, status: 'RUNNING' });
      expect(Date.parse(running.nextRunAt)).toBeGreaterThan(Date.now() - 5_000);
    } finally {
      await rig.app.campaigns.dialler.stop();
    }
  });
});
