/**
 * Hybrid knowledge search (docs/architecture.md §14): with an OpenAI-compatible embeddings endpoint (the engine's
 * fake OpenAI server, whose embeddings are letter-trigram vectors) and a vector column, chunks are embedded as they
 * are indexed and a question's nearest chunks are fused with the full-text ranking — so a misheard spelling that
 * full text cannot match is still found. Embedded PGlite loads pgvector; a Postgres without it (this machine's 15)
 * runs full text alone, and the mode says so. Both are checked, whichever database the run has.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { startFakeOpenAi, type FakeOpenAi } from '@parley/engine/testing';
import { KnowledgeJob } from '../src/knowledge/knowledge-job.ts';
import { searchKnowledge } from '../src/knowledge/knowledge-search.ts';
import { chooseSearchMode, type SearchMode } from '../src/knowledge/search-mode.ts';
import { hasEmbeddingColumn } from '../src/knowledge/search-repository.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { multipartBody } from './support/knowledge-fixtures.ts';
import { MENU_CSV, WEBSITE_MD } from './support/knowledge-content.ts';
import { seedOrganisation, type SeededOrganisation } from './support/seed.ts';

const API_KEY = 'sk-embeddings';
/** The fake's trigram vectors are less alike than a real model's: a short query meets a long passage near 0.25. */
const FAKE_MIN_SIMILARITY = 0.15;

// The mode is chosen on the database the app will use, as the server does at start; which tests run follows it.
const fake: FakeOpenAi = await startFakeOpenAi({ apiKey: API_KEY });
const t: TestApp = await startTestApp();
const mode: SearchMode = await chooseSearchMode(t.db.sql, {
  baseUrl: fake.baseUrl,
  apiKey: API_KEY,
  model: 'text-embedding-3-small',
  minSimilarity: FAKE_MIN_SIMILARITY,
});
const vectors = await hasEmbeddingColumn(t.db.sql);
const hybrid: TestApp = await startTestApp({ db: t.db, bus: t.bus, knowledgeEmbedder: mode.embedder });
let org: SeededOrganisation;

beforeAll(async () => {
  org = await seedOrganisation(t.db.sql);
});

afterAll(async () => {
  await hybrid.close();
  await t.close();
  await fake.close();
});

describe('the knowledge search mode', () => {
  it('is hybrid where the database has a vector type, and full text saying why where it has none', async () => {
    if (vectors) {
      expect(mode.embedder).toBeDefined();
      expect(mode.description).toBe('hybrid (full text and text-embedding-3-small embeddings, reciprocal rank fusion)');
    } else {
      expect(mode.embedder).toBeUndefined();
      expect(mode.description).toContain('the database has no vector type');
    }
    expect((await chooseSearchMode(t.db.sql, undefined)).description).toContain('PARLEY_EMBEDDINGS_BASE_URL');
    // Embedded PGlite always has pgvector: the default installation can search hybrid.
    if (!t.db.url) expect(vectors).toBe(true);
  });
});

describe.runIf(vectors)('hybrid search', () => {
  let job: KnowledgeJob;
  let documentId: string;

  beforeAll(async () => {
    job = new KnowledgeJob(t.db.sql, pino({ level: 'silent' }), { embedder: mode.embedder, retryBaseSeconds: 0 });
    const { payload, headers } = multipartBody({ name: 'Café', text: WEBSITE_MD }, [
      { name: 'menu.csv', content: MENU_CSV },
    ]);
    const created = await hybrid.call(org.key, { method: 'POST', url: '/api/v1/knowledge-bases', payload, headers });
    expect(created.statusCode, created.body).toBe(201);
    documentId = created.json().data.id;
    // The endpoint fails the first attempt: the job retries, it does not give up or store chunks without vectors.
    fake.embeddings.failWith(500);
    expect((await job.runOnce()).get(documentId)).toBe('retry');
    expect((await job.runOnce()).get(documentId)).toBe('ready');
  });

  afterAll(async () => {
    await job.stop();
  });

  const search = async (query: string) => {
    const response = await hybrid.call(org.key, {
      method: 'POST',
      url: '/api/v1/knowledge-bases/search',
      payload: { query },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data.results as { heading: string; text: string; score: number }[];
  };

  it('embeds every chunk through the endpoint as it indexes', async () => {
    const [row] = await t.db.sql<{ chunks: number; embedded: number }[]>`
      select count(*)::int as chunks, count(embedding)::int as embedded from knowledge_chunks
       where document_id = ${documentId}`;
    expect(row!.chunks).toBeGreaterThan(5);
    expect(row!.embedded).toBe(row!.chunks);
    expect(fake.embeddings.requests.at(-1)!.model).toBe('text-embedding-3-small');
  });

  it('finds a misspelt word that full text misses', async () => {
    const fullText = await searchKnowledge(t.db.sql, { organisationId: org.organisationId, query: 'cappucino' });
    expect(fullText).toEqual([]);
    const [hit] = await search('cappucino');
    expect(hit!.text).toContain('item: Cappuccino');
  });

  it('keeps full text ranking first where both agree, and falls back to full text when the endpoint fails', async () => {
    const [top] = await search('what time do you open on Sundays');
    expect(top!.heading).toBe('Harbour Café › Opening hours');
    fake.embeddings.failWith(503);
    const fallback = await search('what time do you open on Sundays');
    expect(fallback[0]!.heading).toBe('Harbour Café › Opening hours');
    // The next question reaches the endpoint again.
    expect((await search('cappucino'))[0]!.text).toContain('item: Cappuccino');
  });
});
