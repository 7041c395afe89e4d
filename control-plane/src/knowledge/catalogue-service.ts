/**
 * Product catalogues (spec document 2, "Catalogues"): an upload catalogue is fed a .csv or .json product file,
 * parsed, indexed and stored within the upload request (spec document 3: up to 30 seconds); its status says
 * processing while that runs, ready after, failed (with last_sync_error) when the file was refused. Search takes
 * the product fields and the filters a question states (product-query.ts).
 */
import path from 'node:path';
import type { Sql } from '../db/database.ts';
import { newId } from '../db/ids.ts';
import { ApiError, badField, notFound } from '../errors.ts';
import { checkQuery } from './knowledge-search.ts';
import { DEFAULT_SEARCH_RESULTS, MAX_NAME_CHARS, MAX_SEARCH_RESULTS, PRODUCT_FILE_KINDS } from './limits.ts';
import { parseProductFeed } from './product-feed.ts';
import { parseProductQuery } from './product-query.ts';
import {
  findCatalogue,
  insertCatalogue,
  listCatalogues,
  markCatalogue,
  replaceProducts,
  searchProducts,
  type CatalogueRow,
} from './catalogue-repository.ts';

/** The integration types this installation feeds; others (point-of-sale connectors) are not built. */
export const INTEGRATION_TYPES = ['upload'] as const;

export interface NewCatalogue {
  integration_type: string;
  name?: string;
  external_id?: string;
  base_url?: string;
  restaurant_id?: string;
  outlet_id?: string;
  is_active?: boolean;
}

export interface CatalogueView {
  id: string;
  organisation_id: string;
  integration_type: string;
  external_id: string;
  name: string;
  base_url: string;
  is_active: boolean;
  restaurant_id: string | null;
  outlet_id: string | null;
  last_sync_at: string | null;
  last_sync_status: string | null;
  last_sync_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProductResultView {
  product_id: string;
  name: string;
  category_path: string[];
  price: number | null;
  currency: string | null;
  in_stock: boolean;
  short_description: string;
}

export function catalogueView(row: CatalogueRow): CatalogueView {
  return {
    id: row.id,
    organisation_id: row.organisation_id,
    integration_type: row.integration_type,
    external_id: row.external_id,
    name: row.name,
    base_url: row.base_url,
    is_active: row.is_active,
    restaurant_id: row.restaurant_id,
    outlet_id: row.outlet_id,
    last_sync_at: row.last_sync_at?.toISOString() ?? null,
    last_sync_status: row.last_sync_status,
    last_sync_error: row.last_sync_error,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export interface ProductQueryInput {
  organisationId: string;
  catalogueIds?: string[];
  query: string;
  limit?: number;
}

/** Products matching a question, best first (REST search, the engine's product_search, the bench). */
export async function searchCatalogueProducts(sql: Sql, input: ProductQueryInput): Promise<ProductResultView[]> {
  const parsed = parseProductQuery(checkQuery(input.query));
  if (input.catalogueIds && input.catalogueIds.length === 0) return [];
  const rows = await searchProducts(sql, {
    organisationId: input.organisationId,
    catalogueIds: input.catalogueIds,
    text: parsed.text,
    inStock: parsed.inStock,
    minPrice: parsed.minPrice,
    maxPrice: parsed.maxPrice,
    limit: Math.min(Math.max(input.limit ?? DEFAULT_SEARCH_RESULTS, 1), MAX_SEARCH_RESULTS),
  });
  return rows.map((row) => ({
    product_id: row.product_id,
    name: row.name,
    category_path: row.category_path,
    price: row.price === null ? null : Number(row.price),
    currency: row.currency,
    in_stock: row.in_stock,
    short_description: row.short_description,
  }));
}

export class CatalogueService {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async create(organisationId: string, input: NewCatalogue): Promise<CatalogueView> {
    if (!(INTEGRATION_TYPES as readonly string[]).includes(input.integration_type)) {
      throw badField(
        'integration_type',
        `${input.integration_type} is not available: catalogues here are fed by upload (integration_type upload)`,
      );
    }
    const externalId = input.external_id?.trim() || newId();
    const baseUrl = `upload://${externalId}`;
    if (input.base_url !== undefined && input.base_url !== baseUrl) {
      throw badField('base_url', `must be ${baseUrl} for an upload catalogue (or left out)`);
    }
    const name = input.name?.trim() || externalId;
    if (name.length > MAX_NAME_CHARS) throw badField('name', `must be at most ${MAX_NAME_CHARS} characters`);
    const row = await insertCatalogue(this.#sql, {
      id: newId(),
      organisation_id: organisationId,
      integration_type: input.integration_type,
      external_id: externalId,
      name,
      base_url: baseUrl,
      is_active: input.is_active ?? true,
      restaurant_id: input.restaurant_id ?? null,
      outlet_id: input.outlet_id ?? null,
    });
    if (!row) throw new ApiError('conflict', `A catalogue with external_id ${externalId} already exists`);
    return catalogueView(row);
  }

  async list(organisationId: string): Promise<CatalogueView[]> {
    return (await listCatalogues(this.#sql, organisationId)).map(catalogueView);
  }

  async #own(organisationId: string, id: string): Promise<CatalogueRow> {
    const row = await findCatalogue(this.#sql, organisationId, id);
    if (!row) throw notFound('Catalogue');
    return row;
  }

  async status(organisationId: string, id: string) {
    const row = await this.#own(organisationId, id);
    return {
      catalogue_id: row.id,
      status: row.status,
      last_sync_status: row.last_sync_status,
      last_sync_at: row.last_sync_at?.toISOString() ?? null,
      last_sync_error: row.last_sync_error,
    };
  }

  /**
   * Parses, indexes and stores the product file within the request; a refused file leaves the old products. The
   * file is read (`readFile`) only once the catalogue is known to be the caller's.
   */
  async upload(
    organisationId: string,
    id: string,
    readFile: () => Promise<{ fileName: string; content: Uint8Array } | undefined>,
  ) {
    const catalogue = await this.#own(organisationId, id);
    const file = await readFile();
    if (!file) throw badField('file', 'is required: a .csv or .json product file');
    const kind = path.extname(file.fileName).slice(1).toLowerCase();
    if (!(PRODUCT_FILE_KINDS as readonly string[]).includes(kind)) {
      throw badField('file', `${file.fileName}: must be a .csv or .json product file`);
    }
    await markCatalogue(this.#sql, id, { status: 'processing' });
    try {
      const products = parseProductFeed(kind as 'csv' | 'json', file.content);
      await replaceProducts(this.#sql, id, products);
      return { catalogue_name: catalogue.name, products: products.length };
    } catch (error) {
      const message = error instanceof ApiError ? error.message : 'The product file could not be stored';
      await markCatalogue(this.#sql, id, { status: 'failed', error: message });
      throw error;
    }
  }

  async search(organisationId: string, id: string, query: string, limit?: number): Promise<ProductResultView[]> {
    await this.#own(organisationId, id);
    return searchCatalogueProducts(this.#sql, { organisationId, catalogueIds: [id], query, limit });
  }
}
