/**
 * The classes of bad input issue 23 found answering 500 or outside the envelope, one representative each: text
 * Postgres cannot store, numbers past a column's range, and failures the framework meets before a route runs.
 * test/fuzz/rest-fuzz.test.ts looks for new members of these classes over every route.
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedOrganisation, type SeededOrganisation } from './support/seed.ts';

let t: TestApp;
let org: SeededOrganisation;

beforeAll(async () => {
  t = await startTestApp();
  org = await seedOrganisation(t.db.sql);
});
afterAll(() => t?.close());

function expectEnvelope(
  res: { statusCode: number; headers: Record<string, unknown>; json(): unknown },
  field?: string,
) {
  expect(res.statusCode).toBe(400);
  expect(res.headers['x-request-id']).toEqual(expect.any(String));
  const body = res.json() as { success: boolean; code: string; message: string; errors?: { field: string }[] };
  expect(body).toMatchObject({ success: false, code: 'validation_failed', message: expect.any(String) });
  if (field) expect(body.errors?.map((e) => e.field)).toContain(field);
}

describe('text Postgres cannot store', () => {
  it('refuses NUL in a body field, naming it', async () => {
    const res = await t.call(org.key, {
      method: 'PUT',
      url: `/api/v1/organisations/${org.organisationId}`,
      payload: { name: 'Acme\u0000Ltd' },
    });
    expectEnvelope(res, 'name');
  });

  it('refuses a lone surrogate nested in free-form JSON and in an object key', async () => {
    const res = await t.call(org.key, {
      method: 'POST',
      url: '/api/v1/voice-sessions/room/some-room/end',
      payload: { metaData: { note: { ['k\uD800']: 1 } } },
    });
    expectEnvelope(res, 'metaData.note.k\uD800');
  });

  it('refuses NUL in a query string and in a path value', async () => {
    const search = await t.call(org.key, { method: 'GET', url: '/api/v1/voice/agents?search=%00' });
    expectEnvelope(search, 'search');
    const room = await t.call(org.key, { method: 'GET', url: '/api/v1/voice-sessions/room/%00' });
    expectEnvelope(room, 'roomName');
    const end = await t.call(org.key, { method: 'POST', url: '/api/v1/voice-sessions/room/a%00b/end', payload: {} });
    expectEnvelope(end, 'roomName');
  });

  it('refuses the call-history export with NUL before any byte of a spreadsheet is sent', async () => {
    const res = await t.call(org.key, {
      method: 'GET',
      url: `/api/v1/call-history/sessions/organization/${org.organisationId}/export?search=%00`,
    });
    expectEnvelope(res, 'search');
  });
});

describe('numbers past a column', () => {
  for (const query of ['page=1e20', 'page=Infinity', 'page=9223372036854775808']) {
    it(`refuses ${query} on the agent list`, async () => {
      expectEnvelope(await t.call(org.key, { method: 'GET', url: `/api/v1/voice/agents?${query}` }), 'page');
    });
  }

  it('refuses an offset past 2^63 on the voice-session list', async () => {
    const res = await t.call(org.key, {
      method: 'GET',
      url: `/api/v1/voice-sessions/organization/${org.organisationId}?offset=9223372036854775808`,
    });
    expectEnvelope(res, 'offset');
  });
});

describe('failures before a route runs', () => {
  it('answers a path value over the router limit in the envelope', async () => {
    const res = await t.call(org.key, { method: 'GET', url: `/api/v1/voice-sessions/room/${'r'.repeat(101)}` });
    expectEnvelope(res, 'path');
  });

  it('answers malformed percent-encoding in the envelope', async () => {
    const res = await t.call(org.key, { method: 'GET', url: '/api/v1/voice-sessions/room/%E0%A4%A' });
    expectEnvelope(res, 'path');
  });

  it("answers a request Node's parser refuses (headers too large) in the envelope, over a real socket", async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    const answer = await new Promise<{ status: number; id: unknown; body: string }>((resolve, reject) => {
      const req = httpRequest({ port, path: `/api/v1/voice/agents?q=${'x'.repeat(20_000)}` }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, id: res.headers['x-request-id'], body }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(answer.status).toBe(400);
    expect(answer.id).toEqual(expect.any(String));
    expect(JSON.parse(answer.body)).toMatchObject({ success: false, code: 'validation_failed' });
  });
});

describe('the other doors', () => {
  it('refuses a body MCP cannot take as a JSON-RPC error, not a 500', async () => {
    const res = await t.call(org.key, { method: 'POST', url: '/mcp', payload: '{}', headers: { 'content-type': '' } });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 }, id: null });
  });

  it('answers a tools/call whose arguments are not an object with invalid params, not an internal error', async () => {
    const res = await t.call(org.key, {
      method: 'POST',
      url: '/mcp',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'agents_list', arguments: null },
      }),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602 } });
  });

  it('answers a webhook for a carrier that does not exist in the envelope', async () => {
    const res = await t.call(undefined, { method: 'POST', url: '/webhooks/nobody/hangup', payload: {} });
    expect(res.statusCode).toBe(404);
    expect(res.headers['x-request-id']).toEqual(expect.any(String));
    expect(res.json()).toMatchObject({ success: false, code: 'not_found' });
  });
});
