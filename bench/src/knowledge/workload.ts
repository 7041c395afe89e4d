/**
 * The knowledge suite's data and load: 20 knowledge documents of synthetic prose (a few thousand made-up words in
 * a Zipf-like spread, so common and rare words behave as in real text) plus one café page with known answers,
 * stored and processed through the control plane's own service and job into about 10,000 chunks; then questions
 * searched one after another through `searchKnowledge`, timed each.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import {
  KnowledgeJob,
  KnowledgeService,
  migrate,
  openDatabase,
  provisionOrganisation,
  searchKnowledge,
  type Sql,
} from '@parley/control-plane';
import { SampleBuffer } from '../percentiles.ts';

export interface KnowledgeWorkload {
  documents: number;
  sectionsPerDocument: number;
  queries: number;
}

/** 20 × 500 sections of about 600 characters: one chunk each, 10,000 in all (issue 18's benchmark). */
export const DEFAULT_WORKLOAD: KnowledgeWorkload = { documents: 20, sectionsPerDocument: 500, queries: 300 };
/** Searches before timing starts: the first ones warm the plan cache and the pages. */
const WARM_UP_QUERIES = 30;
const VOCABULARY = 4_000;

export interface KnowledgeRun {
  database: string;
  chunks: number;
  indexMs: number;
  /** Per search, ms. */
  latency: Float64Array;
  /** The known question found its answer first. */
  answerFound: boolean;
}

const CAFE_PAGE = `# Harbour Café

## Opening hours

Monday to Friday: 7:30 am to 6 pm. Saturday: 8 am to 5 pm. Sunday: 9 am to 3 pm.

## Parking

The harbour car park is two minutes away and free after 6 pm.
`;

/** A seeded generator, so every run searches the same text with the same questions. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'ne',
  'ru',
  'sa',
  'to',
  'vi',
  'ber',
  'dan',
  'fel',
  'gor',
  'hin',
  'jas',
  'kor',
  'lum',
  'mar',
  'nor',
  'pel',
  'quin',
  'ros',
  'sil',
  'tam',
  'ven',
  'wil',
  'yor',
  'zan',
];

function vocabulary(next: () => number): string[] {
  const words = new Set<string>();
  while (words.size < VOCABULARY) {
    const length = 2 + Math.floor(next() * 3);
    words.add(Array.from({ length }, () => SYLLABLES[Math.floor(next() * SYLLABLES.length)]).join(''));
  }
  return [...words];
}

/** A word with a Zipf-like chance: the n-th word about 1/n as likely as the first. */
function zipf(words: string[], next: () => number): string {
  return words[Math.min(words.length - 1, Math.floor(Math.exp(next() * Math.log(words.length + 1))) - 1)]!;
}

function sentence(words: string[], next: () => number): string {
  const length = 8 + Math.floor(next() * 8);
  const text = Array.from({ length }, () => zipf(words, next)).join(' ');
  return `${text[0]!.toUpperCase()}${text.slice(1)}.`;
}

function documentText(words: string[], sections: number, next: () => number): string {
  const parts: string[] = [];
  for (let i = 0; i < sections; i += 1) {
    parts.push(
      `## ${zipf(words, next)} ${zipf(words, next)}`,
      '',
      Array.from({ length: 6 }, () => sentence(words, next)).join(' '),
      '',
    );
  }
  return parts.join('\n');
}

export async function runKnowledgeWorkload(
  databaseUrl: string | undefined,
  workload: KnowledgeWorkload,
  log: (text: string) => void,
  signal: AbortSignal,
): Promise<KnowledgeRun> {
  const schema = databaseUrl ? `bench_${randomBytes(6).toString('hex')}` : 'public';
  const db = await openDatabase({ databaseUrl, schema, dataDir: undefined, maxConnections: 4 });
  try {
    await migrate(db.sql, schema);
    const next = random(18);
    const words = vocabulary(next);
    const { organisationId } = await provisionOrganisation(db.sql, {
      name: 'Bench',
      ownerEmail: `bench-${randomBytes(4).toString('hex')}@example.com`,
      ownerName: 'Bench',
    });
    log(`${db.description}: ${workload.documents} documents of ${workload.sectionsPerDocument} sections…`);
    const started = performance.now();
    const service = new KnowledgeService(db.sql);
    const ids: string[] = [];
    const cafe = await service.create(organisationId, {
      name: 'Café',
      description: undefined,
      text: CAFE_PAGE,
      language: undefined,
      files: [],
    });
    for (let i = 0; i < workload.documents && !signal.aborted; i += 1) {
      const text = documentText(words, workload.sectionsPerDocument, next);
      ids.push(
        (
          await service.create(organisationId, {
            name: `Manual ${i + 1}`,
            description: undefined,
            text,
            language: undefined,
            files: [],
          })
        ).id,
      );
    }
    await processAll(db.sql, ids.length + 1, signal);
    const indexMs = performance.now() - started;
    const [counted] = await db.sql<{ n: number }[]>`select count(*)::int as n from knowledge_chunks`;
    log(`${counted!.n} chunks indexed in ${(indexMs / 1000).toFixed(1)} s; searching…`);

    const questions = Array.from({ length: workload.queries + WARM_UP_QUERIES }, (_, i) =>
      i % 10 === 0
        ? 'what time do you open on Sundays'
        : Array.from({ length: 2 + Math.floor(next() * 4) }, () => zipf(words, next)).join(' '),
    );
    const latency = new SampleBuffer();
    for (const [i, query] of questions.entries()) {
      if (signal.aborted) break;
      const t0 = performance.now();
      await searchKnowledge(db.sql, { organisationId, query, limit: 5 });
      if (i >= WARM_UP_QUERIES) latency.push(performance.now() - t0);
    }
    const [top] = await searchKnowledge(db.sql, { organisationId, query: 'what time do you open on Sundays' });
    return {
      database: db.description,
      chunks: counted!.n,
      indexMs,
      latency: latency.sorted(),
      answerFound: top?.document_id === cafe.id && top.heading === 'Harbour Café › Opening hours',
    };
  } finally {
    if (databaseUrl) await db.sql.unsafe(`drop schema if exists "${schema}" cascade`).catch(() => {});
    await db.close();
  }
}

const quiet = () => {};
const SILENT = { info: quiet, warn: quiet, error: quiet };

/** Runs the processing job until every document is ready. */
async function processAll(sql: Sql, documents: number, signal: AbortSignal): Promise<void> {
  const job = new KnowledgeJob(sql, SILENT);
  let ready = 0;
  while (ready < documents && !signal.aborted) {
    const outcomes = await job.runOnce();
    if (outcomes.size === 0) throw new Error(`only ${ready} of ${documents} documents could be processed`);
    for (const outcome of outcomes.values()) {
      if (outcome !== 'ready') throw new Error(`a document ended ${outcome}`);
      ready += 1;
    }
  }
}
