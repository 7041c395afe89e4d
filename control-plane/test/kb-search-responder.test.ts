/**
 * The control plane's answer to `v1.kb.search` (engine/src/protocol/knowledge-search.ts), over a real bus (NATS
 * when NATS_URL is set, else in-process): knowledge passages and catalogue products of the call's organisation
 * only, an unreadable request answered as such, and a search over its budget answered "timeout" before the
 * engine gives up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { kbSearchCodecs, subjects, type KbSearchRequest } from '@parley/engine/protocol';
import { KbSearchResponder } from '../src/knowledge/kb-search-responder.ts';
import { KnowledgeJob } from '../src/knowledge/knowledge-job.ts';
import { KnowledgeService } from '../src/knowledge/knowledge-service.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { multipartBody } from './support/knowledge-fixtures.ts';
import { WEBSITE_MD } from './support/knowledge-content.ts';
import { seedOrganisation, type SeededOrganisation } from './support/seed.ts';
import { createIsolatedBus } from './support/workers.ts';

let t: TestApp;
let org: SeededOrganisation;
let responder: KbSearchResponder;
let documentId: string;
let catalogueId: string;

const ask = async (request: Partial<KbSearchRequest>) => {
  const reply = await t.bus.request(
    subjects.kbSearch(),
    kbSearchCodecs.request.encode({
      organisationId: org.organisationId,
      kind: 'knowledge',
      ids: [],
      query: 'opening hours',
      ...request,
    }),
    { timeoutMs: 5_000 },
  );
  return kbSearchCodecs.reply.decode(reply.data);
};

beforeAll(async () => {
  t = await startTestApp({ bus: await createIsolatedBus() });
  org = await seedOrganisation(t.db.sql);
  responder = new KbSearchResponder(t.db.sql, t.bus, () => {}).listen();
  documentId = (
    await new KnowledgeService(t.db.sql).create(org.organisationId, {
      name: 'Website',
      description: undefined,
      text: WEBSITE_MD,
      language: undefined,
      files: [],
    })
  ).id;
  await new KnowledgeJob(t.db.sql, pino({ level: 'silent' })).runOnce();
  const created = await t.call(org.key, {
    method: 'POST',
    url: '/api/v1/catalogues',
    payload: { integration_type: 'upload' },
  });
  catalogueId = created.json().data.id;
  const csv = 'id,name,price,currency,in_stock\nB-1,Banana bread,2.50,GBP,yes\nB-2,Blueberry muffin,2.20,GBP,no\n';
  const { payload, headers } = multipartBody({}, [{ name: 'bakery.csv', content: csv, field: 'file' }]);
  const upload = await t.call(org.key, {
    method: 'POST',
    url: `/api/v1/catalogues/${catalogueId}/upload`,
    payload,
    headers,
  });
  expect(upload.statusCode, upload.body).toBe(200);
});

afterAll(async () => {
  responder.close();
  await t.close();
  await t.bus.close();
});

describe('v1.kb.search', () => {
  it('answers knowledge passages of the listed knowledge bases', async () => {
    const reply = await ask({ ids: [documentId], query: 'when do you open on Sunday', limit: 2 });
    expect(reply.ok).toBe(true);
    if (!reply.ok) return;
    expect(reply.passages).toHaveLength(2);
    expect(reply.passages[0]).toMatchObject({
      document_id: documentId,
      document_name: 'Website',
      heading: 'Harbour Café › Opening hours',
    });
    expect(reply.products).toEqual([]);
  });

  it('answers catalogue products, with the filters of the question', async () => {
    const reply = await ask({ kind: 'catalogue', ids: [catalogueId], query: 'muffin' });
    expect(reply).toEqual({
      ok: true,
      passages: [],
      products: [
        {
          product_id: 'B-2',
          name: 'Blueberry muffin',
          category_path: [],
          price: 2.2,
          currency: 'GBP',
          in_stock: false,
          short_description: '',
        },
      ],
    });
    const inStock = await ask({ kind: 'catalogue', ids: [catalogueId], query: 'anything in stock' });
    expect(inStock.ok && inStock.products.map((p) => p.product_id)).toEqual(['B-1']);
  });

  it("finds nothing in another organisation's ids", async () => {
    const other = await seedOrganisation(t.db.sql, 'Other');
    const reply = await ask({ organisationId: other.organisationId, ids: [documentId] });
    expect(reply).toEqual({ ok: true, passages: [], products: [] });
    const catalogue = await ask({
      organisationId: other.organisationId,
      kind: 'catalogue',
      ids: [catalogueId],
      query: 'bread',
    });
    expect(catalogue).toEqual({ ok: true, passages: [], products: [] });
  });

  it('answers an unreadable request, and a search over its budget, with a failure saying which', async () => {
    const bad = await t.bus.request(subjects.kbSearch(), '{"kind":"knowledge"}', { timeoutMs: 5_000 });
    expect(kbSearchCodecs.reply.decode(bad.data)).toMatchObject({ ok: false, code: 'bad_message', retryable: false });
    expect(
      await responder.answer(
        kbSearchCodecs.request.encode({ organisationId: org.organisationId, kind: 'knowledge', ids: [], query: ' ' }),
      ),
    ).toMatchObject({
      ok: false,
      code: 'invalid_request',
    });
    const hurried = new KbSearchResponder(t.db.sql, t.bus, () => {}, { answerMs: 0 });
    const late = await hurried.answer(
      kbSearchCodecs.request.encode({
        organisationId: org.organisationId,
        kind: 'knowledge',
        ids: [documentId],
        query: 'parking',
      }),
    );
    expect(late).toEqual({ ok: false, code: 'timeout', message: 'The search took too long.', retryable: true });
  });
});
