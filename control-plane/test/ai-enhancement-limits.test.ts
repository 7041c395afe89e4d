/**
 * /ai-enhancement's limits: the spec's default rate limits (30 per minute per client address, 20 per key), and
 * the answer when no language model is there to ask.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bus } from '@parley/engine/bus';
import { RATE_LIMIT_DEFAULTS } from '../src/rate-limits.ts';
import { LLM_WORKER_WAIT_MS } from '../src/enhancement/field-enhancer.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedMember, seedOrganisation, type SeededOrganisation } from './support/seed.ts';
import { createIsolatedBus, startTestLlm, type TestLlm } from './support/workers.ts';

let bus: Bus;
let t: TestApp;
let llm: TestLlm;
let org: SeededOrganisation;

beforeAll(async () => {
  bus = await createIsolatedBus();
  t = await startTestApp({ bus });
  llm = await startTestLlm(bus);
  org = await seedOrganisation(t.db.sql);
});
afterAll(async () => {
  await llm?.close();
  await t?.close();
  await bus?.close();
});

const field = { fieldType: 'agentTask', text: 'Book appointments.' };

function enhance(app: TestApp, key: string, remoteAddress: string, many = false) {
  return app.call(key, {
    method: 'POST',
    url: `/api/v1/ai-enhancement/${many ? 'enhance-fields' : 'enhance-field'}`,
    payload: many ? { fields: [field] } : field,
    remoteAddress,
  });
}

async function statuses(count: number, send: () => ReturnType<typeof enhance>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i += 1) out.push((await send()).statusCode);
  return out;
}

describe('AI enhancement rate limits (defaults)', () => {
  it('are the spec figures', () => {
    expect(RATE_LIMIT_DEFAULTS.aiEnhancementPerKey).toBe(20);
    expect(RATE_LIMIT_DEFAULTS.aiEnhancementPerIp).toBe(30);
  });

  it('allow 20 requests a minute per key across both routes, then 429 with the spec body', async () => {
    const { key } = await seedMember(t.db.sql, org.organisationId, 'EDITOR', ['ai:enhance']);
    const first = await statuses(10, () => enhance(t, key, '10.1.0.1'));
    const second = await statuses(10, () => enhance(t, key, '10.1.0.2', true));
    expect([...first, ...second]).toEqual(Array(20).fill(200));
    const refused = await enhance(t, key, '10.1.0.3');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({
      success: false,
      code: 'rate_limited',
      message: expect.stringContaining('at most 20 requests per minute'),
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('allow 30 requests a minute per client address, whatever the keys', async () => {
    const keys = await Promise.all(
      [1, 2].map(() => seedMember(t.db.sql, org.organisationId, 'EDITOR', ['ai:enhance'])),
    );
    const address = '10.2.0.1';
    expect(await statuses(15, () => enhance(t, keys[0]!.key, address))).toEqual(Array(15).fill(200));
    expect(await statuses(15, () => enhance(t, keys[1]!.key, address, true))).toEqual(Array(15).fill(200));
    const refused = await enhance(t, keys[1]!.key, address);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().message).toContain('at most 30 requests per minute');
    // The key itself is still within its own 20.
    expect((await enhance(t, keys[1]!.key, '10.2.0.2')).statusCode).toBe(200);
  });
});

describe('AI enhancement without a language model', () => {
  it('answers 503 saying no language model is available, after a short wait', async () => {
    const lonelyBus = await createIsolatedBus();
    const lonely = await startTestApp({ db: t.db, bus: lonelyBus });
    try {
      const started = performance.now();
      const res = await enhance(lonely, org.key, '10.3.0.1', true);
      const waited = performance.now() - started;
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({
        success: false,
        code: 'unavailable',
        message: expect.stringContaining('No language model is available'),
      });
      expect(res.json().message).toContain('PARLEY_LLM_BASE_URL');
      expect(waited).toBeGreaterThanOrEqual(LLM_WORKER_WAIT_MS - 50);
      expect(waited).toBeLessThan(LLM_WORKER_WAIT_MS + 2_000);
    } finally {
      await lonely.close();
      await lonelyBus.close();
    }
  });
});
