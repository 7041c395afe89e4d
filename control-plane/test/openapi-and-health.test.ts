import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.ts';
import { GENERATED_TYPES_MODULE, generateTypes, redoclyLint, typeErrors } from './support/openapi-tools.ts';

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
    expect(Object.keys(invite.responses)).toEqual(['201', '400', '401', '403', '404']);
    expect(invite.responses['401'].description).toBe('Missing, invalid or revoked API key');
    expect(doc.components.schemas.Organisation).toBeDefined();
  });

  it('gives every operation a unique operationId, a declared tag, and its error answers', async () => {
    const doc = (await t.call(undefined, { method: 'GET', url: '/api/v1/openapi.json' })).json();
    const declaredTags = (doc.tags as { name: string }[]).map((tag) => tag.name);
    const operations = Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, ...op })),
    );
    const ids = operations.map((op) => op.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(operations.length);
    for (const op of operations) {
      expect(op.tags?.length, op.route).toBeGreaterThan(0);
      for (const tag of op.tags ?? []) expect(declaredTags, op.route).toContain(tag);
      const codes = Object.keys(op.responses);
      if (!NO_CLIENT_ERRORS.has(op.route))
        expect(
          codes.some((code) => code.startsWith('4')),
          op.route,
        ).toBe(true);
    }
    const byRoute = new Map(operations.map((op) => [op.route, op]));
    expect(byRoute.get('POST /api/v1/voice/agents')?.operationId).toBe('createAgent');
    expect(byRoute.get('GET /api/v1/voice/agents')?.operationId).toBe('listAgents');
    expect(byRoute.get('GET /api/v1/telephony/overview/{organisationId}')?.operationId).toBe('getTelephonyOverview');
    // 429 only where a rate limit guards the route; 404 wherever a path parameter picks something out.
    expect(Object.keys(byRoute.get('POST /api/v1/ai-enhancement/enhance-field')!.responses)).toContain('429');
    expect(Object.keys(byRoute.get('POST /api/v1/voice/agents')!.responses)).not.toContain('429');
    expect(Object.keys(byRoute.get('GET /api/v1/voice/agents/{id}/greeting')!.responses)).toContain('404');
    expect(byRoute.get('GET /api/v1/invitations/{token}')?.security).toEqual([]);
    expect(byRoute.get('POST /mcp')?.security).toBeUndefined();
  });

  it('states in the schema which fields a new agent needs by builderMode and agentType', async () => {
    const doc = (await t.call(undefined, { method: 'GET', url: '/api/v1/openapi.json' })).json();
    const body = doc.paths['/api/v1/voice/agents'].post.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(['name', 'agentIdentity']);
    expect(body.allOf).toEqual([
      expect.objectContaining({
        // @fastify/swagger writes const as a one-value enum.
        if: { properties: { builderMode: { enum: ['PROMPT'] } } },
        then: expect.objectContaining({ required: ['agentTask'] }),
      }),
      expect.objectContaining({
        if: { properties: { agentType: { enum: ['VOICE'] } } },
        then: expect.objectContaining({ required: ['greetingMessage'] }),
      }),
    ]);
  });
});

describe('the OpenAPI document, used', () => {
  const agent = {
    name: 'Reception',
    agentIdentity: 'You are the receptionist of Sunrise Dental.',
    agentTask: 'Book appointments.',
    greetingMessage: 'Hello, Sunrise Dental.',
  };
  /** What a client author writes with openapi-fetch over the generated types; `body` is spliced in. */
  const program = (body: object) => `
    import createClient from 'openapi-fetch';
    import type { paths } from '${GENERATED_TYPES_MODULE}';

    const client = createClient<paths>({ baseUrl: 'https://parley.example', headers: { Authorization: 'Bearer k' } });
    export async function createReceptionist(): Promise<string> {
      const { data, error } = await client.POST('/api/v1/voice/agents', { body: ${JSON.stringify(body)} });
      if (error) return error.message;
      const version: number = data.data.version;
      return data.data.id + version;
    }
  `;

  it('generates a typed client (openapi-typescript) that compiles a call, and not one missing a required field', async () => {
    const doc = (await t.call(undefined, { method: 'GET', url: '/api/v1/openapi.json' })).json();
    const types = await generateTypes(doc);
    expect(types).toContain('createAgent: {');
    expect(typeErrors(types, program(agent))).toEqual([]);
    const { name: _name, ...withoutName } = agent;
    expect(typeErrors(types, program(withoutName)).join('\n')).toMatch(/Property 'name' is missing/);
  });

  it('passes redocly lint with no errors and only the warnings the README explains', async () => {
    const doc = (await t.call(undefined, { method: 'GET', url: '/api/v1/openapi.json' })).json();
    const problems = await redoclyLint(doc);
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    const warnings = problems.map((p) => `${p.ruleId} ${decodeURIComponent(p.pointer)}`).sort();
    expect(warnings).toEqual([...EXPLAINED_LINT_WARNINGS].sort());
  });
});

/**
 * The warnings `redocly lint` gives on purpose (README, "OpenAPI"), by rule and place:
 * - no-ambiguous-paths: these paths come from the spec (document 2); the router matches the literal word first
 *   (GET /campaigns/organisations/{organisationId} beside /campaigns/{id}/<action>).
 * - operation-4xx-response: probes and metadata answer every request.
 * - operation-2xx-response: GET and DELETE /mcp always answer 405 (the MCP server is stateless, POST only); GET
 *   /api/v1/widget/chat is a websocket (its success is 101 Switching Protocols).
 * - no-unused-components: FlowDefinition documents flowDefinition's structure; the field itself is an open
 *   object because flows are checked by the engine, which reports every problem in flowErrors.
 */
const EXPLAINED_LINT_WARNINGS = [
  ...['complete', 'contacts', 'duplicate', 'follow-up', 'pause', 'start', 'stats'].map(
    (action) => `no-ambiguous-paths #/paths/~1api~1v1~1campaigns~1{id}~1${action}`,
  ),
  'no-ambiguous-paths #/paths/~1api~1v1~1organisations~1{organisationId}~1invite',
  'no-ambiguous-paths #/paths/~1api~1v1~1organisations~1{organisationId}~1invitations',
  'no-ambiguous-paths #/paths/~1api~1v1~1voice-sessions~1{sessionId}~1recording',
  'operation-4xx-response #/paths/~1healthz/get/responses',
  'operation-4xx-response #/paths/~1readyz/get/responses',
  'operation-4xx-response #/paths/~1mcp~1health/get/responses',
  'operation-4xx-response #/paths/~1.well-known~1oauth-protected-resource~1mcp/get/responses',
  'operation-4xx-response #/paths/~1.well-known~1oauth-authorization-server/get/responses',
  'operation-2xx-response #/paths/~1mcp/get/responses',
  'operation-2xx-response #/paths/~1mcp/delete/responses',
  'operation-2xx-response #/paths/~1api~1v1~1widget~1chat/get/responses',
  'no-unused-components #/components/schemas/FlowDefinition',
];

interface Operation {
  operationId?: string;
  tags?: string[];
  security?: unknown[];
  responses: Record<string, unknown>;
}

/** Probes and metadata that answer every request: they have no client error to document. */
const NO_CLIENT_ERRORS = new Set([
  'GET /healthz',
  'GET /readyz',
  'GET /mcp/health',
  'GET /.well-known/oauth-protected-resource/mcp',
  'GET /.well-known/oauth-authorization-server',
]);

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
