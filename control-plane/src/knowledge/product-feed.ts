/**
 * A catalogue's product file (spec document 2, POST /catalogues/{id}/upload): CSV with a header line, or JSON (an
 * array of products, or an object holding one under `products` / `items` / `data`). Column and key names are
 * matched loosely (product_id, id or sku; name or title; category_path, category or categories with " > " or "/"
 * between levels; price; currency; in_stock, stock, available or availability; short_description or description),
 * and every other column is kept as an attribute that search finds ("colour: red"). A product without an id or a
 * name, or with a price that is not a number, is a 400 naming its line or position.
 */
import { badField } from '../errors.ts';
import { parseCsv } from './csv.ts';
import { MAX_PRODUCTS } from './limits.ts';

export interface ProductInput {
  product_id: string;
  name: string;
  category_path: string[];
  price: number | null;
  currency: string | null;
  in_stock: boolean;
  short_description: string;
  attributes: Record<string, string>;
}

const ALIASES: Record<keyof Omit<ProductInput, 'attributes'>, string[]> = {
  product_id: ['product_id', 'productid', 'id', 'sku', 'item_id', 'code'],
  name: ['name', 'title', 'product_name', 'item'],
  category_path: ['category_path', 'category', 'categories', 'product_type'],
  price: ['price', 'amount', 'unit_price', 'sale_price'],
  currency: ['currency', 'currency_code'],
  in_stock: ['in_stock', 'instock', 'stock', 'available', 'availability', 'quantity', 'inventory'],
  short_description: ['short_description', 'description', 'summary', 'details'],
};
const NOT_IN_STOCK = new Set(['false', 'no', 'n', '0', 'out of stock', 'out_of_stock', 'unavailable', 'sold out']);

const normalKey = (key: string) =>
  key
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

export function parseProductFeed(kind: 'csv' | 'json', bytes: Uint8Array, field = 'file'): ProductInput[] {
  const text = new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, '');
  const records = kind === 'csv' ? csvRecords(text, field) : jsonRecords(text, field);
  if (records.length === 0) throw badField(field, 'holds no products');
  if (records.length > MAX_PRODUCTS) throw badField(field, `holds more than ${MAX_PRODUCTS} products`);
  const products = records.map(({ where, values }) => product(values, `${field} ${where}`));
  const seen = new Set<string>();
  for (const [i, p] of products.entries()) {
    if (seen.has(p.product_id)) throw badField(field, `${records[i]!.where}: product_id ${p.product_id} appears twice`);
    seen.add(p.product_id);
  }
  return products;
}

interface FeedRecord {
  where: string;
  values: Record<string, unknown>;
}

function csvRecords(text: string, field: string): FeedRecord[] {
  const [header, ...rows] = parseCsv(text);
  if (!header) throw badField(field, 'is empty');
  return rows.map((row, i) => ({
    where: `line ${i + 2}`,
    values: Object.fromEntries(header.map((name, j) => [name, row[j] ?? ''])),
  }));
}

function jsonRecords(text: string, field: string): FeedRecord[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw badField(field, `is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!Array.isArray(value) && typeof value === 'object' && value !== null) {
    const holder = value as Record<string, unknown>;
    value = holder.products ?? holder.items ?? holder.data;
  }
  if (!Array.isArray(value)) throw badField(field, 'must be an array of products, or an object with a products array');
  return value.map((item, i) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw badField(field, `product ${i + 1} is not an object`);
    }
    return { where: `product ${i + 1}`, values: item as Record<string, unknown> };
  });
}

function product(values: Record<string, unknown>, where: string): ProductInput {
  const byKey = new Map(Object.entries(values).map(([k, v]) => [normalKey(k), v] as const));
  const used = new Set<string>();
  const pick = (name: keyof typeof ALIASES) => {
    for (const alias of ALIASES[name]) {
      if (byKey.has(alias) && byKey.get(alias) !== '' && byKey.get(alias) !== null) {
        used.add(alias);
        return byKey.get(alias);
      }
      if (byKey.has(alias)) used.add(alias);
    }
    return undefined;
  };
  const id = text(pick('product_id'));
  if (!id) throw badField('file', `${where}: has no product_id (or id, sku)`);
  const name = text(pick('name'));
  if (!name) throw badField('file', `${where}: has no name`);
  const rawPrice = pick('price');
  let price: number | null = null;
  if (rawPrice !== undefined) {
    const digits = String(rawPrice)
      .replace(/[^\d.,-]/g, '')
      .replace(',', '.');
    price = typeof rawPrice === 'number' ? rawPrice : digits ? Number(digits) : Number.NaN;
    if (!Number.isFinite(price) || price < 0)
      throw badField('file', `${where}: price ${String(rawPrice)} is not a price`);
  }
  const rawCategory = pick('category_path');
  const category_path = Array.isArray(rawCategory)
    ? rawCategory.map(text).filter(Boolean)
    : text(rawCategory)
        .split(/\s*(?:>|\/|\|)\s*/)
        .filter(Boolean);
  const stock = pick('in_stock');
  const in_stock =
    stock === undefined ||
    (typeof stock === 'number'
      ? stock > 0
      : typeof stock === 'boolean'
        ? stock
        : !NOT_IN_STOCK.has(text(stock).toLowerCase()));
  const attributes: Record<string, string> = {};
  for (const [key, value] of byKey) {
    if (used.has(key) || value === null || value === undefined || value === '') continue;
    attributes[key] = typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  return {
    product_id: id,
    name,
    category_path,
    price,
    currency: text(pick('currency')).toUpperCase() || null,
    in_stock,
    short_description: text(pick('short_description')),
    attributes,
  };
}

function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  return (typeof value === 'object' ? JSON.stringify(value) : String(value)).replace(/\u0000/g, '').trim();
}
