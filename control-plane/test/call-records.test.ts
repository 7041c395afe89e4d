/** /voice-sessions: call records — create, read, end (with the engine told to hang up), list and stats. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callCodecs, subjects } from '@parley/engine/protocol';
import { startTestApp, type TestApp } from './support/app.ts';
import {
  seedAgent,
  seedCall,
  seedOrganisation,
  seedUser,
  updateAgentColumns,
  type SeededOrganisation,
} from './support/seed.ts';
import { newId } from '../src/db/ids.ts';

let t: TestApp;
let org: SeededOrganisation;
let other: SeededOrganisation;
let voiceAgent: string;
let chatAgent: string;

beforeAll(async () => {
  t = await startTestApp();
  org = await seedOrganisation(t.db.sql, 'Calls');
  other = await seedOrganisation(t.db.sql, 'Other');
  voiceAgent = await seedAgent(t.db.sql, org.organisationId, 'VOICE');
  chatAgent = await seedAgent(t.db.sql, org.organisationId, 'CHAT');
  await updateAgentColumns(t.db.sql, voiceAgent, {
    greeting_message: 'Hello {{name}}, this is {{company}}.',
    custom_variables: { company: 'Acme' },
  });
});
afterAll(() => t?.close());

const create = (payload: Record<string, unknown>, key = org.key) =>
  t.call(key, {
    method: 'POST',
    url: '/api/v1/voice-sessions',
    payload: { orgId: org.organisationId, agentId: voiceAgent, participantName: 'ada LOVELACE', ...payload },
  });

describe('POST /voice-sessions', () => {
  it('creates a record only: capitalised name, agent name and filled greeting, the agent counted and stamped', async () => {
    const room = `room-${newId()}`;
    const res = await create({ roomName: room, phoneNumber: '+15551230000', customVariables: { name: 'Ada' } });
    expect(res.statusCode, res.body).toBe(201);
    const call = res.json().data;
    expect(call).toMatchObject({
      roomName: room,
      orgId: org.organisationId,
      agentId: voiceAgent,
      participantName: 'Ada lovelace',
      phoneNumber: '+15551230000',
      createdById: org.ownerId,
      callType: 'sip',
      callDirection: 'OUTBOUND',
      callStatus: null,
      endedAt: null,
      agentName: 'VOICE agent',
      greetingMessage: 'Hello Ada, this is Acme.',
      source: 'manual',
      overview: null,
      actions: { tracking: '', items: [] },
      organisation: { id: org.organisationId, name: 'Calls', type: 'TEAM' },
      agent: { id: voiceAgent, name: 'VOICE agent' },
      createdBy: { id: org.ownerId, name: 'Calls Owner' },
    });
    expect(call.id).toMatch(/^[0-9a-f]{24}$/);
    const agent = await t.db.sql<
      { total_calls: number; last_used: Date | null }[]
    >`select total_calls, last_used from agents where id = ${voiceAgent}`;
    expect(agent[0]!.total_calls).toBeGreaterThanOrEqual(1);
    expect(agent[0]!.last_used).not.toBeNull();
  });

  it('ignores a client-sent agentResult and metaData.flowResult, keeping the rest of metaData', async () => {
    const res = await create({
      roomName: `room-${newId()}`,
      agentResult: { outcomeKey: 'sold' },
      metaData: { flowResult: { x: 1 }, crm: 'A-1' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.agentResult).toBeNull();
    expect(res.json().data.metaData).toEqual({ crm: 'A-1' });
  });

  it('refuses an unknown field, a chat/voice mismatch, a bad enum, naming each field', async () => {
    const unknown = await create({ roomName: `room-${newId()}`, colour: 'red' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors).toEqual([{ field: 'colour', message: 'is not an accepted field' }]);
    const voiceAsChat = await create({ roomName: `room-${newId()}`, callType: 'chat' });
    expect(voiceAsChat.statusCode).toBe(400);
    expect(voiceAsChat.json().errors[0].field).toBe('callType');
    const chatAsSip = await create({ roomName: `room-${newId()}`, agentId: chatAgent, callType: 'sip' });
    expect(chatAsSip.statusCode).toBe(400);
    expect(chatAsSip.json().errors[0].field).toBe('callType');
    const chat = await create({ roomName: `room-${newId()}`, agentId: chatAgent });
    expect(chat.json().data.callType).toBe('chat');
    const badEnum = await create({ roomName: `room-${newId()}`, callDirection: 'SIDEWAYS' });
    expect(badEnum.json().errors).toEqual([{ field: 'callDirection', message: 'must be one of: INBOUND, OUTBOUND' }]);
    const missing = await t.call(org.key, {
      method: 'POST',
      url: '/api/v1/voice-sessions',
      payload: { orgId: org.organisationId },
    });
    expect(missing.json().errors.map((e: { field: string }) => e.field)).toEqual(
      expect.arrayContaining(['roomName', 'agentId', 'participantName']),
    );
  });

  it('409 for a taken roomName, 404 for an unknown agent, 403 for another organisation, 400 for a stranger as creator', async () => {
    const room = `room-${newId()}`;
    expect((await create({ roomName: room })).statusCode).toBe(201);
    const counted = async () =>
      (await t.db.sql<{ n: number }[]>`select total_calls as n from agents where id = ${voiceAgent}`)[0]!.n;
    const before = await counted();
    const again = await create({ roomName: room });
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('conflict');
    expect(await counted()).toBe(before);
    expect((await create({ roomName: `room-${newId()}`, agentId: newId() })).statusCode).toBe(404);
    expect((await create({ roomName: `room-${newId()}`, orgId: other.organisationId })).statusCode).toBe(403);
    const stranger = await create({ roomName: `room-${newId()}`, createdById: await seedUser(t.db.sql) });
    expect(stranger.statusCode).toBe(400);
    expect(stranger.json().errors[0].field).toBe('createdById');
  });
});

describe('reading a record', () => {
  it('by id (with organisation, agent, createdBy) and by room name; 400 for a malformed id, 404 for another organisation', async () => {
    const id = await seedCall(t.db.sql, org.organisationId, voiceAgent, { room_name: `read-${newId()}` });
    const byId = await t.call(org.key, { method: 'GET', url: `/api/v1/voice-sessions/${id}` });
    expect(byId.statusCode, byId.body).toBe(200);
    expect(byId.json().data).toMatchObject({
      id,
      organisation: { id: org.organisationId },
      agent: { id: voiceAgent },
      createdBy: null,
    });
    const byRoom = await t.call(org.key, {
      method: 'GET',
      url: `/api/v1/voice-sessions/room/${byId.json().data.roomName}`,
    });
    expect(byRoom.json().data.id).toBe(id);
    const malformed = await t.call(org.key, { method: 'GET', url: '/api/v1/voice-sessions/not-an-id' });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().errors).toEqual([{ field: 'sessionId', message: 'must be a 24-character hexadecimal id' }]);
    expect((await t.call(other.key, { method: 'GET', url: `/api/v1/voice-sessions/${id}` })).statusCode).toBe(404);
    expect(
      (await t.call(other.key, { method: 'GET', url: `/api/v1/voice-sessions/room/${byId.json().data.roomName}` }))
        .statusCode,
    ).toBe(404);
  });

  it('never shows the one-use media stream URL a ringing call keeps until the carrier answers', async () => {
    const id = await seedCall(t.db.sql, org.organisationId, voiceAgent, {
      room_name: `ringing-${newId()}`,
      call_status: 'INITIATED',
      media_stream_url: 'ws://engine/media/carrier-b/secret-token',
      meta_data: { note: 'kept' },
    });
    const read = await t.call(org.key, { method: 'GET', url: `/api/v1/voice-sessions/${id}` });
    expect(read.json().data.metaData).toEqual({ note: 'kept' });
    expect(read.body).not.toContain('secret-token');
  });
});

describe('POST /voice-sessions/room/{roomName}/end', () => {
  it('completes a record: endedAt now, callDuration since creation, the reason in metaData.endReason', async () => {
    const createdAt = new Date(Date.now() - 90_000);
    const room = `end-${newId()}`;
    await seedCall(t.db.sql, org.organisationId, voiceAgent, {
      room_name: room,
      created_at: createdAt,
      call_status: null,
    });
    const res = await t.call(org.key, {
      method: 'POST',
      url: `/api/v1/voice-sessions/room/${room}/end`,
      payload: { reason: 'agent_left' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const call = res.json().data;
    expect(call.callStatus).toBe('COMPLETED');
    expect(call.metaData.endReason).toBe('agent_left');
    expect(call.callDuration).toBeGreaterThanOrEqual(89_000);
    expect(call.callDuration).toBeLessThan(120_000);
    expect(Date.parse(call.endedAt)).toBeGreaterThan(Date.now() - 10_000);
    expect(call.analysisStatus).toBe('pending');
    // Ending again changes nothing.
    const again = await t.call(org.key, {
      method: 'POST',
      url: `/api/v1/voice-sessions/room/${room}/end`,
      payload: { reason: 'twice' },
    });
    expect(again.json()).toMatchObject({
      message: 'Call had already ended',
      data: { endedAt: call.endedAt, metaData: { endReason: 'agent_left' } },
    });
  });

  it('tells the engine running a live call to hang up', async () => {
    const room = `live-${newId()}`;
    const id = await seedCall(t.db.sql, org.organisationId, voiceAgent, {
      room_name: room,
      call_status: 'IN_PROGRESS',
      dispatched_at: new Date(),
      answered_at: new Date(),
    });
    const control = t.bus.subscribe(subjects.callControl(id));
    const heard = (async () => {
      for await (const message of control) return callCodecs.control.decode(message.data);
    })();
    const res = await t.call(org.key, { method: 'POST', url: `/api/v1/voice-sessions/room/${room}/end` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.metaData.endReason).toBe('ended_by_api');
    expect(await heard).toEqual({ type: 'end', reason: 'ended_by_api' });
    control.unsubscribe();
  });

  it('400 for a reason that is not a string, 404 for an unknown or foreign room', async () => {
    const room = `bad-${newId()}`;
    await seedCall(t.db.sql, org.organisationId, voiceAgent, { room_name: room });
    expect(
      (
        await t.call(org.key, {
          method: 'POST',
          url: `/api/v1/voice-sessions/room/${room}/end`,
          payload: { reason: 5 },
        })
      ).statusCode,
    ).toBe(400);
    expect(
      (await t.call(other.key, { method: 'POST', url: `/api/v1/voice-sessions/room/${room}/end`, payload: {} }))
        .statusCode,
    ).toBe(404);
    expect(
      (await t.call(org.key, { method: 'POST', url: '/api/v1/voice-sessions/room/nothing-here/end', payload: {} }))
        .statusCode,
    ).toBe(404);
  });
});

describe('lists and stats', () => {
  let listOrg: SeededOrganisation;
  let agent: string;
  const ids: string[] = [];

  beforeAll(async () => {
    listOrg = await seedOrganisation(t.db.sql, 'Lists');
    agent = await seedAgent(t.db.sql, listOrg.organisationId, 'VOICE');
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000);
    const seed = (minutesAgo: number, columns: Parameters<typeof seedCall>[3]) =>
      seedCall(t.db.sql, listOrg.organisationId, agent, { created_at: at(minutesAgo), ...columns });
    ids.push(
      await seed(50, { call_status: 'COMPLETED', call_outcome: 'completed', answered_at: at(50), ended_at: at(49) }),
    );
    ids.push(await seed(40, { call_status: 'COMPLETED', call_outcome: 'no_answer', ended_at: at(39) }));
    ids.push(
      await seed(30, { call_status: 'COMPLETED', call_outcome: 'voicemail', ended_at: at(29), call_type: 'web' }),
    );
    ids.push(await seed(20, { call_status: 'FAILED', call_outcome: 'failed', ended_at: at(20) }));
    ids.push(await seed(10, { call_status: 'IN_PROGRESS', answered_at: at(10) }));
    ids.push(await seed(5, { call_status: null }));
    // Scheduled and not yet placed: in no list and no count.
    await seed(1, { call_status: 'SCHEDULED', scheduled_time: new Date(Date.now() + 3_600_000) });
  });

  it('lists newest first with offset pagination and a callType filter, leaving out scheduled calls', async () => {
    const all = await t.call(listOrg.key, {
      method: 'GET',
      url: `/api/v1/voice-sessions/organization/${listOrg.organisationId}`,
    });
    expect(all.json().data.map((c: { id: string }) => c.id)).toEqual([...ids].reverse());
    const page = await t.call(listOrg.key, {
      method: 'GET',
      url: `/api/v1/voice-sessions/organization/${listOrg.organisationId}`,
      query: { limit: '2', offset: '1' },
    });
    expect(page.json().data.map((c: { id: string }) => c.id)).toEqual([ids[4], ids[3]]);
    const web = await t.call(listOrg.key, {
      method: 'GET',
      url: `/api/v1/voice-sessions/organization/${listOrg.organisationId}`,
      query: { callType: 'web' },
    });
    expect(web.json().data.map((c: { id: string }) => c.id)).toEqual([ids[2]]);
    expect(
      (await t.call(listOrg.key, { method: 'GET', url: `/api/v1/voice-sessions/organization/${org.organisationId}` }))
        .statusCode,
    ).toBe(403);
  });

  it('counts total, answered, not answered and failed; filters by agent and call type; 400 names an unknown callType', async () => {
    const stats = await t.call(listOrg.key, { method: 'GET', url: '/api/v1/voice-sessions/stats' });
    expect(stats.json().data).toEqual({ total: 6, answered: 1, notAnswered: 2, failed: 1 });
    const noWeb = await t.call(listOrg.key, {
      method: 'GET',
      url: '/api/v1/voice-sessions/stats',
      query: { excludeCallType: 'web' },
    });
    expect(noWeb.json().data).toEqual({ total: 5, answered: 1, notAnswered: 1, failed: 1 });
    const onlyWeb = await t.call(listOrg.key, {
      method: 'GET',
      url: '/api/v1/voice-sessions/stats',
      query: { callType: 'web', excludeCallType: 'web' },
    });
    expect(onlyWeb.json().data).toEqual({ total: 1, answered: 0, notAnswered: 1, failed: 0 });
    const otherAgent = await t.call(listOrg.key, {
      method: 'GET',
      url: '/api/v1/voice-sessions/stats',
      query: { agentId: newId() },
    });
    expect(otherAgent.json().data.total).toBe(0);
    const unknown = await t.call(listOrg.key, {
      method: 'GET',
      url: '/api/v1/voice-sessions/stats',
      query: { callType: 'fax' },
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors).toEqual([
      { field: 'callType', message: 'must be one of: sip, web, chat, websocket' },
    ]);
    const foreign = await t.call(listOrg.key, {
      method: 'GET',
      url: '/api/v1/voice-sessions/stats',
      query: { orgId: org.organisationId },
    });
    expect(foreign.statusCode).toBe(404);
  });
});
