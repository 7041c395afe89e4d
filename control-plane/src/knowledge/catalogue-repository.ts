/**
 * Catalogues and their products (migration 015_knowledge). An upload replaces a catalogue's products in one
 * transaction, so a search sees the old list or the new one, never half of either.
 */
import type { Queryable, Sql } from '../db/database.ts';
import type { ProductInput } from './product-feed.ts';
import { mergePendingEntries } from './search-index-repository.ts';

export interface CatalogueRow {
  id: string;
  organisation_id: string;
  integration_type: string;
  external_id: string;
  name: string;
  base_url: string;
  is_active: boolean;
  restaurant_id: string | null;
  outlet_id: string | null;
  status: 'processing' | 'ready' | 'failed';
  last_sync_at: Date | null;
  last_sync_status: string | null;
  last_sync_error: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface ProductRow {
  product_id: string;
  name: string;
  category_path: string[];
  price: string | null;
  currency: string | null;
  in_stock: boolean;
  short_description: string;
  score: number;
}

/** Catalogue search language: product names and descriptions are searched with English stemming. */
const CATALOGUE_CONFIGURATION = 'english';
const PRODUCT_INSERT_BATCH = 500;
const MIN_PREFIX_LEXEME = 4;

export async function insertCatalogue(
  sql: Queryable,
  row: Omit<
    CatalogueRow,
    'status' | 'last_sync_at' | 'last_sync_status' | 'last_sync_error' | 'created_at' | 'updated_at'
  >,
): Promise<CatalogueRow | undefined> {
  const [created] = await sql<CatalogueRow[]>`
    insert into catalogues (id, organisation_id, integration_type, external_id, name, base_url, is_active,
                            restaurant_id, outlet_id)
    values (${row.id}, ${row.organisation_id}, ${row.integration_type}, ${row.external_id}, ${row.name},
            ${row.base_url}, ${row.is_active}, ${row.restaurant_id}, ${row.outlet_id})
    on conflict (organisation_id, integration_type, external_id) do nothing
    returning *`;
  return created;
}

export function listCatalogues(sql: Queryable, organisationId: string): Promise<CatalogueRow[]> {
  return sql<CatalogueRow[]>`select * from catalogues where organisation_id = ${organisationId}
                             order by created_at desc, id desc`;
}

export async function findCatalogue(sql: Queryable, organisationId: string, id: string) {
  const [row] = await sql<
    CatalogueRow[]
  >`select * from catalogues where organisation_id = ${organisationId} and id = ${id}`;
  return row;
}

export async function markCatalogue(
  sql: Queryable,
  id: string,
  state: { status: CatalogueRow['status']; error?: string | null; synced?: boolean },
): Promise<void> {
  await sql`update catalogues set status = ${state.status}, updated_at = now(),
              last_sync_error = ${state.error ?? null},
              last_sync_status = case when ${state.synced ?? false} then 'OK'
                                      when ${state.status} = 'failed' then 'FAILED' else last_sync_status end,
              last_sync_at = case when ${state.synced ?? false} then now() else last_sync_at end
            where id = ${id}`;
}

/** Replaces the catalogue's products and marks it ready, in one transaction. */
export function replaceProducts(sql: Sql, catalogueId: string, products: ProductInput[]): Promise<void> {
  return sql.begin(async (tx) => {
    await tx`select id from catalogues where id = ${catalogueId} for update`;
    await tx`delete from catalogue_products where catalogue_id = ${catalogueId}`;
    for (let start = 0; start < products.length; start += PRODUCT_INSERT_BATCH) {
      const batch = products.slice(start, start + PRODUCT_INSERT_BATCH);
      const column = <K extends keyof ProductInput>(key: K) => batch.map((p) => p[key]);
      await tx`
        insert into catalogue_products (catalogue_id, product_id, name, category_path, price, currency, in_stock,
                                        short_description, attributes, search)
        select ${catalogueId}, p.product_id, p.name, string_to_array(p.category, chr(31)), p.price::numeric,
               p.currency, p.in_stock::boolean, p.short_description, p.attributes::jsonb,
               setweight(to_tsvector(${CATALOGUE_CONFIGURATION}::regconfig, p.name), 'A') ||
               setweight(to_tsvector(${CATALOGUE_CONFIGURATION}::regconfig, replace(p.category, chr(31), ' ')), 'B') ||
               setweight(to_tsvector(${CATALOGUE_CONFIGURATION}::regconfig, p.short_description || ' ' || p.attribute_text), 'C')
          from unnest(${column('product_id')}::text[], ${column('name')}::text[],
                      ${batch.map((p) => p.category_path.join('\u001f'))}::text[], ${batch.map((p) => (p.price === null ? null : String(p.price)))}::text[],
                      ${column('currency')}::text[], ${batch.map((p) => String(p.in_stock))}::text[],
                      ${column('short_description')}::text[], ${batch.map((p) => JSON.stringify(p.attributes))}::text[],
                      ${batch.map((p) =>
                        Object.entries(p.attributes)
                          .map(([k, v]) => `${k.replace(/_/g, ' ')}: ${v}`)
                          .join('. '),
                      )}::text[])
            as p(product_id, name, category, price, currency, in_stock, short_description, attributes, attribute_text)`;
    }
    await mergePendingEntries(tx, 'catalogue_products_search');
    await tx`update catalogues set status = 'ready', last_sync_status = 'OK', last_sync_at = now(),
               last_sync_error = null, updated_at = now() where id = ${catalogueId}`;
  }) as Promise<void>;
}

export interface ProductSearch {
  organisationId: string;
  catalogueIds: string[] | undefined;
  text: string;
  inStock?: boolean;
  minPrice?: number;
  maxPrice?: number;
  limit: number;
}

/**
 * Products of active catalogues matching the filters; with words, those holding any of them (stemmed, longer
 * ones as prefixes), ranked like knowledge chunks; without words, by name.
 */
export function searchProducts(sql: Queryable, search: ProductSearch): Promise<ProductRow[]> {
  const ids = search.catalogueIds ?? null;
  const config = CATALOGUE_CONFIGURATION;
  return sql<ProductRow[]>`
    with q as (
      select to_tsquery(${config}::regconfig, coalesce((
               select string_agg(quote_literal(lexeme) || case when length(lexeme) >= ${MIN_PREFIX_LEXEME}
                                                           then ':*' else '' end, ' | ')
                 from unnest(to_tsvector(${config}::regconfig, ${search.text}))), '')) as any_word,
             plainto_tsquery(${config}::regconfig, ${search.text}) as all_words
    )
    select p.product_id, p.name, p.category_path, p.price::text as price, p.currency, p.in_stock,
           p.short_description,
           (case when numnode(q.any_word) = 0 then 0
                 else ts_rank_cd(p.search, q.any_word, 32) * 0.7
                      + case when p.search @@ q.all_words then 0.3 else 0 end end)::float8 as score
      from q, catalogue_products p join catalogues c on c.id = p.catalogue_id
     where c.organisation_id = ${search.organisationId} and c.is_active
       and (${ids}::text[] is null or c.id = any(${ids}::text[]))
       and (numnode(q.any_word) = 0 or p.search @@ q.any_word)
       and (${search.inStock ?? null}::boolean is null or p.in_stock = ${search.inStock ?? null}::boolean)
       and (${search.minPrice ?? null}::numeric is null or p.price >= ${search.minPrice ?? null}::numeric)
       and (${search.maxPrice ?? null}::numeric is null or p.price <= ${search.maxPrice ?? null}::numeric)
     order by score desc, p.name, p.id
     limit ${search.limit}`;
}
