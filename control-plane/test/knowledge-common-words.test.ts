/**
 * Knowledge search when no word of the question is rare (docs/architecture.md §14): in a knowledge base of 600
 * sections, words in more than 100 chunks pick candidates in two lists — chunks holding every word, then chunks
 * holding the least common one — each found through the GIN index when few chunks match, or by reading chunks when
 * most do. Whichever way, the passage holding every word as the phrase asked ranks first, even when it is the
 * base's last section (the chunks holding every word come before the others, whatever their order). The questions
 * are checked on both sides of the reading threshold. Runs on PGlite, or on DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { KnowledgeJob } from '../src/knowledge/knowledge-job.ts';
import { searchKnowledge } from '../src/knowledge/knowledge-search.ts';
import { COMMON_WORD_CHUNKS, READ_SHARE } from '../src/knowledge/search-repository.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedOrganisation, type SeededOrganisation } from './support/seed.ts';

const SECTIONS = 600;
/** "ferry" and "timetable" each in 110 sections: common, yet under READ_SHARE of the base (found by the index). */
const FERRY_EVERY = 5;
const TIMETABLE_OFFSET = 2;
/** "harbour" in every section and "lighthouse" in half: found by reading chunks. */
const LIGHTHOUSE_EVERY = 2;

/** Section i's text: filler, plus the words its number calls for (none of them together as a phrase). */
function sectionText(i: number): string {
  const words = ['The', 'harbour', 'district', 'notes', `item${i}`];
  if (i % FERRY_EVERY === 0 && i < 550) words.push('with', 'a', 'ferry', 'mentioned');
  if ((i + TIMETABLE_OFFSET) % FERRY_EVERY === 0 && i < 550) words.push('and', 'a', 'timetable', 'posted');
  if (i % LIGHTHOUSE_EVERY === 0) words.push('near', 'the', 'old', 'lighthouse', 'steps');
  return `${words.join(' ')}.`;
}

function knowledgeText(): string {
  const parts: string[] = ['# Harbour notes', ''];
  for (let i = 0; i < SECTIONS; i += 1) parts.push(`## Section ${i}`, '', sectionText(i), '');
  // The answers: the last section holds "ferry timetable" as a phrase; an early one "harbour lighthouse".
  parts.push('## Crossings', '', 'The ferry timetable is posted at the harbour office every morning.', '');
  return parts.join('\n').replace('## Section 10\n\n', '## Section 10\n\nThe harbour lighthouse opens at noon. ');
}

let t: TestApp;
let org: SeededOrganisation;
let job: KnowledgeJob;

beforeAll(async () => {
  t = await startTestApp();
  org = await seedOrganisation(t.db.sql, 'Harbour');
  job = new KnowledgeJob(t.db.sql, pino({ level: 'silent' }));
  const created = await t.call(org.key, {
    method: 'POST',
    url: '/api/v1/knowledge-bases',
    payload: { name: 'Harbour notes', text: knowledgeText() },
  });
  expect(created.statusCode, created.body).toBe(201);
  expect((await job.runOnce()).get(created.json().data.id)).toBe('ready');
});

afterAll(async () => {
  await job.stop();
  await t.close();
});

async function wordChunks(): Promise<Map<string, number>> {
  const rows = await t.db.sql<{ lexeme: string; chunks: number }[]>`
    select l.lexeme, l.chunks from knowledge_lexemes l join knowledge_documents d on d.id = l.document_id
     where d.organisation_id = ${org.organisationId} and l.lexeme in ('ferri', 'timet', 'harbour', 'lighthous')`;
  return new Map(rows.map((row) => [row.lexeme, row.chunks]));
}

describe('knowledge search without rare words', () => {
  it('has the words the test means: common, on each side of the reading share', async () => {
    const counts = await wordChunks();
    const chunks = SECTIONS + 1;
    for (const word of ['ferri', 'timet']) {
      expect(counts.get(word)).toBeGreaterThan(COMMON_WORD_CHUNKS);
      expect(counts.get(word)! / chunks).toBeLessThan(READ_SHARE);
    }
    for (const word of ['harbour', 'lighthous']) expect(counts.get(word)! / chunks).toBeGreaterThan(READ_SHARE);
  });

  it('finds the last section holding every word, through the index', async () => {
    const [top, ...rest] = await searchKnowledge(t.db.sql, {
      organisationId: org.organisationId,
      query: 'when is the ferry timetable',
    });
    expect(top!.heading).toBe('Harbour notes › Crossings');
    expect(top!.text).toContain('ferry timetable');
    // The others hold one of the words: candidates came from the least common word's list too.
    expect(rest.length).toBeGreaterThan(0);
    for (const hit of rest) expect(hit.text).toMatch(/ferry|timetable/);
  });

  it('finds the phrase among words found everywhere, by reading chunks', async () => {
    const hits = await searchKnowledge(t.db.sql, {
      organisationId: org.organisationId,
      query: 'harbour lighthouse',
      limit: 10,
    });
    expect(hits[0]!.heading).toBe('Harbour notes › Section 10');
    expect(hits[0]!.text).toContain('harbour lighthouse');
    expect(hits).toHaveLength(10);
    for (const hit of hits) expect(hit.text).toMatch(/harbour.*lighthouse/s);
  });
});
