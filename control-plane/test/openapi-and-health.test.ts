import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1, public, and describes every API route with its security and errors', async () => {
    const res = await t.call(undefined, { method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    const documented = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const registered = t.app.routeCatalogue
      .filter((r) => r.url.startsWith('/api/v1/') && r.url !== '/api/v1/openapi.json')
      .map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`);
    expect(registered.length).toBeGreaterThan(10);
    for (const route of registered) expect(documented).toContain(route);
    const invite = doc.paths['/api/v1/organisations/{organisationId}/invite'].post;
    expect(invite.requestBody.content['application/json'].schema.required).toEqual(['email', 'name']);
    expect(Object.keys(invite.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403', '429']));
    expect(doc.components.schemas.Organisation).toBeDefined();
  });
});

describe('health', () => {
  it('answers liveness and readiness without a key', async () => {
    const live = await t.call(undefined, { method: 'GET', url: '/healthz' });
    expect(live.json()).toEqual({ status: 'ok' });
    const ready = await t.call(undefined, { method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toMatchObject({ status: 'ready', database: { ok: true }, bus: { ok: true } });
  });

  it('is not ready once the bus is gone', async () => {
    const other = await startTestApp({ db: t.db });
    await other.bus.close();
    const ready = await other.call(undefined, { method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ status: 'not ready', bus: { ok: false } });
    await other.close();
  });
});
