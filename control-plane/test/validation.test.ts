/** Bad input gets a 400 naming the failing fields — including the cases the spec lets fail with 500. */
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

function fieldsOf(body: { errors?: { field: string }[] }): string[] {
  return (body.errors ?? []).map((e) => e.field).sort();
}

describe('input validation', () => {
  it('lists every failing field at once, each in the message too', async () => {
    const res = await t.call(org.key, {
      method: 'POST',
      url: `/api/v1/organisations/${org.organisationId}/invite`,
      payload: { email: 'not-an-email', name: 'x', role: 'SUPREME' },
    });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ success: false, code: 'validation_failed' });
    expect(fieldsOf(body)).toEqual(['email', 'name', 'role']);
    expect(body.message).toContain('email must be a valid email');
    expect(body.message).toContain('role must be one of: OWNER, ADMIN, EDITOR, VIEWER');
    expect(body.message).toContain('name must be at least 2 characters long');
  });

  it('refuses unknown enum values with 400, not 500', async () => {
    const res = await t.call(org.key, {
      method: 'PUT',
      url: `/api/v1/organisations/${org.organisationId}`,
      payload: { visibility: 'SECRET' },
    });
    expect(res.statusCode).toBe(400);
    expect(fieldsOf(res.json())).toEqual(['visibility']);
  });

  it('refuses malformed ids in the path with 400 naming the parameter', async () => {
    const res = await t.call(org.key, { method: 'GET', url: '/api/v1/organisations/user/12345' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ field: 'userId', message: 'must be a 24-character hexadecimal id' }]);
  });

  it('refuses unknown body fields where a body is closed', async () => {
    const res = await t.call(org.key, {
      method: 'POST',
      url: '/api/v1/api-keys/widget',
      payload: { organisation_id: org.organisationId, agent_id: org.organisationId, scopes: ['agents:write'] },
    });
    expect(res.statusCode).toBe(400);
    expect(fieldsOf(res.json())).toEqual(['scopes']);
    expect(res.json().message).toContain('scopes is not an accepted field');
  });

  it('does not coerce JSON body types: a number is not a name', async () => {
    const res = await t.call(org.key, {
      method: 'PUT',
      url: `/api/v1/organisations/${org.organisationId}`,
      payload: { name: 42 },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ field: 'name', message: 'must be a string' }]);
  });

  it('coerces query strings, which are text by nature', async () => {
    const agent = org.organisationId; // any well-formed id: the agent does not exist, so the answer is 404, not 400
    const res = await t.call(org.key, {
      method: 'GET',
      url: '/api/v1/api-keys/widget',
      query: { organisation_id: org.organisationId, agent_id: agent },
    });
    expect(res.statusCode).toBe(404);
  });

  it('names a missing required query parameter', async () => {
    const res = await t.call(org.key, {
      method: 'GET',
      url: '/api/v1/api-keys/widget',
      query: { organisation_id: org.organisationId },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ field: 'agent_id', message: 'is required' }]);
  });

  it('answers malformed JSON with 400', async () => {
    const res = await t.call(org.key, {
      method: 'PUT',
      url: `/api/v1/organisations/${org.organisationId}`,
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ success: false, code: 'validation_failed' });
  });

  it('answers an unknown route with the error shape', async () => {
    const res = await t.call(org.key, { method: 'GET', url: '/api/v1/nothing-here' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      success: false,
      code: 'not_found',
      message: 'Route GET /api/v1/nothing-here not found',
    });
  });

  it('never leaks internals on a 500', async () => {
    const broken = await startTestApp({ db: t.db });
    // Drop a table the route needs, inside this app only: the failure must surface as a plain 500.
    await t.db.sql`alter table invitations rename to invitations_away`;
    try {
      const res = await broken.call(org.key, {
        method: 'GET',
        url: `/api/v1/organisations/${org.organisationId}/invitations`,
      });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ success: false, code: 'internal', message: 'Internal server error' });
      expect(res.body).not.toContain('invitations');
    } finally {
      await t.db.sql`alter table invitations_away rename to invitations`;
      await broken.close();
    }
  });

  it('echoes a request id, or makes one', async () => {
    const given = await t.call(org.key, {
      method: 'GET',
      url: '/api/v1/api-keys/me',
      headers: { 'x-request-id': 'trace-123' },
    });
    expect(given.headers['x-request-id']).toBe('trace-123');
    const made = await t.call(org.key, { method: 'GET', url: '/api/v1/api-keys/me' });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
