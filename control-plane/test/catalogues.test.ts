/**
 * Catalogues end to end (spec document 2, "Catalogues"; docs/architecture.md §14): created as upload catalogues,
 * fed a CSV and a JSON product file within the request, searched by name, category and attribute, with the filters
 * a question states (in stock, price limits); refused files name the line, leave the old products and mark the
 * catalogue failed. Runs on PGlite, or on DATABASE_URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.ts';
import { multipartBody } from './support/knowledge-fixtures.ts';
import { seedOrganisation, type SeededOrganisation } from './support/seed.ts';
import { MAX_UPLOAD_FILE_BYTES } from '../src/knowledge/limits.ts';

const SHOES_CSV = `sku,title,category,price,currency,stock,description,colour
SH-1,Trail runner,Shoes > Running,89.00,GBP,12,"Grippy trail running shoe",red
SH-2,Road racer,Shoes > Running,120.00,GBP,0,"Light road running shoe for race day",blue
SH-3,Canvas sneaker,Shoes > Casual,35.50,GBP,40,"Everyday canvas shoe",white
SO-1,Wool socks,Accessories > Socks,9.99,GBP,100,"Merino hiking socks",grey
`;

const MENU_JSON = JSON.stringify({
  products: [
    {
      id: 'M-1',
      name: 'Margherita pizza',
      category: ['Food', 'Pizza'],
      price: 9,
      currency: 'EUR',
      available: true,
      description: 'Tomato, mozzarella, basil',
    },
    {
      id: 'M-2',
      name: 'Vegan lasagne',
      category: 'Food/Pasta',
      price: 12.5,
      currency: 'EUR',
      available: false,
      description: 'Layers of lentil ragù',
    },
  ],
});

let t: TestApp;
let org: SeededOrganisation;
let shoesId: string;

const post = (url: string, payload: unknown, key = org.key) =>
  t.call(key, { method: 'POST', url, payload: payload as never });

async function uploadFile(id: string, name: string, content: string | Uint8Array, key = org.key) {
  const { payload, headers } = multipartBody({}, [{ name, content, field: 'file' }]);
  return t.call(key, { method: 'POST', url: `/api/v1/catalogues/${id}/upload`, payload, headers });
}

async function search(id: string, query: string) {
  const response = await post(`/api/v1/catalogues/${id}/search`, { query });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().data.results as { product_id: string; price: number; in_stock: boolean }[];
}

beforeAll(async () => {
  t = await startTestApp();
  org = await seedOrganisation(t.db.sql);
  const created = await post('/api/v1/catalogues', {
    integration_type: 'upload',
    external_id: 'shoes',
    name: 'Shoe shop',
  });
  expect(created.statusCode, created.body).toBe(201);
  shoesId = created.json().data.id;
});

afterAll(async () => {
  await t.close();
});

describe('catalogues', () => {
  it('are created as upload catalogues and listed', async () => {
    const list = await t.call(org.key, { method: 'GET', url: '/api/v1/catalogues' });
    expect(list.json().data).toEqual([
      expect.objectContaining({
        id: shoesId,
        organisation_id: org.organisationId,
        integration_type: 'upload',
        external_id: 'shoes',
        base_url: 'upload://shoes',
        is_active: true,
        last_sync_status: null,
      }),
    ]);
    const status = await t.call(org.key, { method: 'GET', url: `/api/v1/catalogues/${shoesId}/status` });
    expect(status.json().data).toMatchObject({ catalogue_id: shoesId, status: 'processing', last_sync_at: null });
    expect((await post('/api/v1/catalogues', { integration_type: 'upload', external_id: 'shoes' })).statusCode).toBe(
      409,
    );
    const pos = await post('/api/v1/catalogues', { integration_type: 'petpooja' });
    expect(pos.statusCode).toBe(400);
    expect(pos.json().errors[0].field).toBe('integration_type');
    const wrongUrl = await post('/api/v1/catalogues', {
      integration_type: 'upload',
      external_id: 'x',
      base_url: 'https://x',
    });
    expect(wrongUrl.json().errors[0].field).toBe('base_url');
  });

  it('store a CSV product file within the request and search it by name, category and attribute', async () => {
    const upload = await uploadFile(shoesId, 'shoes.csv', SHOES_CSV);
    expect(upload.statusCode, upload.body).toBe(200);
    expect(upload.json().data).toEqual({ catalogue_name: 'Shoe shop', products: 4 });
    const status = (await t.call(org.key, { method: 'GET', url: `/api/v1/catalogues/${shoesId}/status` })).json().data;
    expect(status).toMatchObject({ status: 'ready', last_sync_status: 'OK', last_sync_error: null });
    expect(status.last_sync_at).not.toBeNull();

    const running = await search(shoesId, 'running shoes');
    expect(
      running
        .map((p) => p.product_id)
        .slice(0, 2)
        .sort(),
    ).toEqual(['SH-1', 'SH-2']);
    expect(running[0]).toMatchObject({ category_path: ['Shoes', 'Running'], currency: 'GBP' });
    const [red] = await search(shoesId, 'do you have something red');
    expect(red!.product_id).toBe('SH-1');
    const [socks] = await search(shoesId, 'hiking socks');
    expect(socks).toEqual({
      product_id: 'SO-1',
      name: 'Wool socks',
      category_path: ['Accessories', 'Socks'],
      price: 9.99,
      currency: 'GBP',
      in_stock: true,
      short_description: 'Merino hiking socks',
    });
  });

  it('understand stock and price filters in the question', async () => {
    const inStock = await search(shoesId, 'running shoes in stock');
    expect(inStock[0]!.product_id).toBe('SH-1');
    expect(inStock.every((p) => p.in_stock)).toBe(true);
    expect(inStock.map((p) => p.product_id)).not.toContain('SH-2');
    const cheap = await search(shoesId, 'shoes under £50');
    expect(cheap.map((p) => p.product_id)).toEqual(['SH-3']);
    const range = await search(shoesId, 'shoes between 50 and 100');
    expect(range.map((p) => p.product_id)).toEqual(['SH-1']);
    const over = await search(shoesId, 'anything over 100 dollars');
    expect(over.map((p) => p.product_id)).toEqual(['SH-2']);
  });

  it('take a JSON product file, replacing the products', async () => {
    const created = await post('/api/v1/catalogues', { integration_type: 'upload', external_id: 'menu' });
    const id = created.json().data.id;
    const upload = await uploadFile(id, 'menu.json', MENU_JSON);
    expect(upload.json().data).toEqual({ catalogue_name: 'menu', products: 2 });
    const [pasta] = await search(id, 'lasagne');
    expect(pasta).toMatchObject({ product_id: 'M-2', category_path: ['Food', 'Pasta'], price: 12.5, in_stock: false });
    const [pizza] = await search(id, 'pizza');
    expect(pizza).toMatchObject({ product_id: 'M-1', category_path: ['Food', 'Pizza'], in_stock: true });
    const again = await uploadFile(id, 'menu.json', JSON.stringify([{ id: 'M-3', name: 'Tiramisu', price: 6 }]));
    expect(again.json().data.products).toBe(1);
    expect(await search(id, 'pizza')).toEqual([]);
  });

  it('refuse a bad file naming its line, keeping the products and marking the catalogue failed', async () => {
    const bad = await uploadFile(shoesId, 'shoes.csv', 'sku,title,price\nX-1,Broken shoe,cheap\n');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toContain('line 2');
    const status = (await t.call(org.key, { method: 'GET', url: `/api/v1/catalogues/${shoesId}/status` })).json().data;
    expect(status).toMatchObject({ status: 'failed', last_sync_status: 'FAILED' });
    expect(status.last_sync_error).toContain('line 2');
    expect((await search(shoesId, 'wool socks'))[0]!.product_id).toBe('SO-1');

    const wrongKind = await uploadFile(shoesId, 'shoes.xlsx', 'x');
    expect(wrongKind.statusCode).toBe(400);
    expect(wrongKind.json().message).toContain('shoes.xlsx');
    const big = await uploadFile(shoesId, 'huge.csv', Buffer.alloc(MAX_UPLOAD_FILE_BYTES + 1, 'a'));
    expect(big.statusCode).toBe(413);
    expect(big.json().message).toContain('huge.csv');
    const two = multipartBody({}, [
      { name: 'a.csv', content: SHOES_CSV, field: 'file' },
      { name: 'b.csv', content: SHOES_CSV, field: 'file' },
    ]);
    const twoFiles = await t.call(org.key, { method: 'POST', url: `/api/v1/catalogues/${shoesId}/upload`, ...two });
    expect(twoFiles.statusCode).toBe(413);
    expect(twoFiles.json().message).toContain('b.csv');
    expect((await post(`/api/v1/catalogues/${shoesId}/search`, { query: '  ' })).statusCode).toBe(400);
  });

  it('keep to the organisation of the key', async () => {
    const other = await seedOrganisation(t.db.sql, 'Other');
    expect((await uploadFile(shoesId, 'shoes.csv', SHOES_CSV, other.key)).statusCode).toBe(404);
    expect((await post(`/api/v1/catalogues/${shoesId}/search`, { query: 'shoes' }, other.key)).statusCode).toBe(404);
    const status = await t.call(other.key, { method: 'GET', url: `/api/v1/catalogues/${shoesId}/status` });
    expect(status.statusCode).toBe(404);
    expect((await t.call(other.key, { method: 'GET', url: '/api/v1/catalogues' })).json().data).toEqual([]);
  });
});
