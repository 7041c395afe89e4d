/**
 * Knowledge bases end to end (spec document 2, "Knowledge bases"; docs/architecture.md §14): documents in every
 * upload format are stored, processed by the background job into chunks, and searched — a spoken question finds
 * the opening hours, a quoted phrase must match as written, stemming joins "refund" and "refunds", a CSV row and
 * a JSON record are found by their values. Upload limits answer 413/400 naming the file and store nothing; a file
 * that cannot be read ends in status error; deletion removes the chunks. Runs on PGlite, or on DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { KnowledgeJob } from '../src/knowledge/knowledge-job.ts';
import { countChunks } from '../src/knowledge/knowledge-repository.ts';
import { MAX_UPLOAD_FILE_BYTES } from '../src/knowledge/limits.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { multipartBody, type FormFileInput } from './support/knowledge-fixtures.ts';
import { accessDocx, FAQ_JSON, MENU_CSV, returnsPdf, WEBSITE_MD } from './support/knowledge-content.ts';
import { seedOrganisation, type SeededOrganisation } from './support/seed.ts';

let t: TestApp;
let org: SeededOrganisation;
let job: KnowledgeJob;
let handbookId: string;
let dataId: string;

async function upload(fields: Record<string, string>, files: FormFileInput[] = [], key = org.key) {
  const { payload, headers } = multipartBody(fields, files);
  return t.call(key, { method: 'POST', url: '/api/v1/knowledge-bases', payload, headers });
}

async function search(query: string, extra: Record<string, unknown> = {}) {
  const response = await t.call(org.key, {
    method: 'POST',
    url: '/api/v1/knowledge-bases/search',
    payload: { query, ...extra },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data.results as { document_name: string; heading: string; text: string; score: number }[];
}

async function documentCount(): Promise<number> {
  const [row] = await t.db.sql<{ n: number }[]>`select count(*)::int as n from knowledge_documents`;
  return row!.n;
}

beforeAll(async () => {
  t = await startTestApp();
  org = await seedOrganisation(t.db.sql);
  job = new KnowledgeJob(t.db.sql, pino({ level: 'silent' }));
  const handbook = await upload({ name: 'Café handbook', description: 'Website and papers', text: WEBSITE_MD }, [
    { name: 'returns.pdf', content: returnsPdf() },
    { name: 'access.docx', content: await accessDocx() },
  ]);
  expect(handbook.statusCode, handbook.body).toBe(201);
  expect(handbook.json().data).toMatchObject({
    status: 'processing',
    source_type: 'mixed',
    file_count: 2,
    chunk_count: null,
  });
  handbookId = handbook.json().data.id;
  const data = await upload({ name: 'Menu and FAQ' }, [
    { name: 'menu.csv', content: MENU_CSV },
    { name: 'faq.json', content: FAQ_JSON },
  ]);
  expect(data.statusCode, data.body).toBe(201);
  dataId = data.json().data.id;
  const outcomes = await job.runOnce();
  expect(outcomes.get(handbookId)).toBe('ready');
  expect(outcomes.get(dataId)).toBe('ready');
});

afterAll(async () => {
  await job.stop();
  await t.close();
});

describe('knowledge bases', () => {
  it('are ready after processing, with their chunks counted', async () => {
    const response = await t.call(org.key, { method: 'GET', url: `/api/v1/knowledge-bases/${handbookId}` });
    expect(response.statusCode).toBe(200);
    const document = response.json().data;
    expect(document).toMatchObject({ name: 'Café handbook', status: 'ready', error: null, language: 'english' });
    expect(document.chunk_count).toBeGreaterThanOrEqual(8);
    expect(document.chunk_count).toBe(await countChunks(t.db.sql, handbookId));
    const list = await t.call(org.key, { method: 'GET', url: '/api/v1/knowledge-bases' });
    expect(list.json().data.map((d: { id: string }) => d.id)).toEqual([dataId, handbookId]);
  });

  it('answers a spoken question with the right section of the page', async () => {
    const [top, second] = await search('what time do you open on Sundays');
    expect(top!.heading).toBe('Harbour Café › Opening hours');
    expect(top!.text).toContain('Sunday: 9 am to 3 pm.');
    expect(top!.document_name).toBe('Café handbook');
    // Events mention Sunday and time too, and rank below.
    expect(second!.heading).toBe('Harbour Café › Events');
    expect(top!.score).toBeGreaterThan(second!.score);
  });

  it('holds a quoted phrase to its words in order', async () => {
    const results = await search('"gift card"');
    expect(results.map((r) => r.heading)).toEqual(['Harbour Café › Gift cards']);
    // Unquoted, the hamper paragraph with "gift" and "card" apart is found too, below the phrase.
    const loose = await search('gift card');
    expect(loose[0]!.heading).toBe('Harbour Café › Gift cards');
    expect(loose.map((r) => r.heading)).toContain('Harbour Café › Hampers');
  });

  it('finds words by their stem and by prefix, in the PDF and the Word document', async () => {
    const [refund] = await search('can I get a refund');
    expect(refund!.text).toContain('Refunds are paid to the card');
    expect(refund!.heading).toBe('Returns and refunds');
    const [access] = await search('is there wheelchair access');
    expect(access!.heading).toBe('Accessibility');
    expect(access!.text).toContain('wheelchair accessible toilet');
    const [prefix] = await search('allerg');
    expect(prefix!.text).toContain('allergen folder');
  });

  it('searches questions full of tsquery syntax as plain words', async () => {
    for (const query of ["it's O'Neil's \\ back\\slash", 'a:b & c | !d <-> (e) *:', '"unclosed phrase', "'''"]) {
      expect(Array.isArray(await search(query)), query).toBe(true);
    }
    const [top] = await search("what's the parking like? (car park!)");
    expect(top!.heading).toBe('Harbour Café › Parking');
  });

  it('finds a CSV row and a JSON record by their values', async () => {
    const [flatWhite] = await search('how much is a flat white');
    expect(flatWhite!.document_name).toBe('Menu and FAQ');
    expect(flatWhite!.text).toContain('item: Flat white; price: 3.20');
    const [loyalty] = await search('loyalty stamps');
    expect(loyalty!.text).toContain('the tenth coffee is free');
    const onlyHandbook = await search('flat white', { knowledge_base_ids: [handbookId] });
    expect(onlyHandbook).toEqual([]);
  });

  it('keeps to the organisation of the key', async () => {
    const other = await seedOrganisation(t.db.sql, 'Other');
    const read = await t.call(other.key, { method: 'GET', url: `/api/v1/knowledge-bases/${handbookId}` });
    expect(read.statusCode).toBe(404);
    const found = await t.call(other.key, {
      method: 'POST',
      url: '/api/v1/knowledge-bases/search',
      payload: { query: 'opening hours' },
    });
    expect(found.json().data.results).toEqual([]);
    const removed = await t.call(other.key, { method: 'DELETE', url: `/api/v1/knowledge-bases/${handbookId}` });
    expect(removed.statusCode).toBe(404);
  });
});

describe('knowledge uploads refused', () => {
  it('names the sixth file, and the file over 4 MB, with 413; nothing is stored', async () => {
    const before = await documentCount();
    const six = Array.from({ length: 6 }, (_, i) => ({ name: `note-${i + 1}.txt`, content: `note ${i + 1}` }));
    const tooMany = await upload({ name: 'Six notes' }, six);
    expect(tooMany.statusCode).toBe(413);
    expect(tooMany.json().message).toContain('note-6.txt');
    const big = await upload({ name: 'Big' }, [
      { name: 'small.txt', content: 'fine' },
      { name: 'huge.md', content: Buffer.alloc(MAX_UPLOAD_FILE_BYTES + 1, 'a') },
    ]);
    expect(big.statusCode).toBe(413);
    expect(big.json().message).toContain('huge.md');
    expect(await documentCount()).toBe(before);
  });

  it('answers 400 naming what is wrong', async () => {
    const before = await documentCount();
    const cases: [Record<string, string>, FormFileInput[], string][] = [
      [{ name: 'Slides' }, [{ name: 'deck.pptx', content: 'x' }], 'deck.pptx'],
      [{ text: 'no name' }, [], 'name'],
      [{ name: 'Nothing' }, [], 'text'],
      [{ name: 'Klingon', text: 'Qapla', language: 'tlh' }, [], 'language'],
      [{ name: 'Extra', text: 'x', colour: 'blue' }, [], 'colour'],
      [{ name: 'Empty' }, [{ name: 'empty.txt', content: '' }], 'empty.txt'],
    ];
    for (const [fields, files, named] of cases) {
      const response = await upload(fields, files);
      expect(response.statusCode, JSON.stringify(fields)).toBe(400);
      expect(response.json().message).toContain(named);
    }
    const json = await t.call(org.key, {
      method: 'POST',
      url: '/api/v1/knowledge-bases',
      payload: { name: 'x', files: ['aGVsbG8='] },
    });
    expect(json.statusCode).toBe(400);
    expect(json.json().errors[0].field).toBe('files');
    expect(await documentCount()).toBe(before);
  });

  it('takes a JSON body of text fields', async () => {
    const response = await t.call(org.key, {
      method: 'POST',
      url: '/api/v1/knowledge-bases',
      payload: { name: 'Note', text: 'The terrace opens in May.' },
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().data).toMatchObject({ source_type: 'text', file_count: 0, status: 'processing' });
    await t.call(org.key, { method: 'DELETE', url: `/api/v1/knowledge-bases/${response.json().data.id}` });
  });

  it('ends in status error naming a file that cannot be read', async () => {
    const response = await upload({ name: 'Broken' }, [{ name: 'broken.pdf', content: '%PDF-1.4 not really' }]);
    expect(response.statusCode).toBe(201);
    const id = response.json().data.id;
    expect((await job.runOnce()).get(id)).toBe('error');
    const document = (await t.call(org.key, { method: 'GET', url: `/api/v1/knowledge-bases/${id}` })).json().data;
    expect(document.status).toBe('error');
    expect(document.error).toContain('broken.pdf');
    expect(document.chunk_count).toBeNull();
  });
});

describe('knowledge base deletion', () => {
  it('removes the document and its chunks; search no longer finds them', async () => {
    expect(await countChunks(t.db.sql, dataId)).toBeGreaterThan(0);
    const response = await t.call(org.key, { method: 'DELETE', url: `/api/v1/knowledge-bases/${dataId}` });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toEqual({ deleted: true, id: dataId });
    expect(await countChunks(t.db.sql, dataId)).toBe(0);
    expect((await t.call(org.key, { method: 'GET', url: `/api/v1/knowledge-bases/${dataId}` })).statusCode).toBe(404);
    expect(await search('flat white')).toEqual([]);
  });
});
