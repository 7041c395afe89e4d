/**
 * Route schemas of /catalogues (spec document 2, "Catalogues"; scopes knowledge:read / knowledge:write). The upload
 * form is multipart: its body schema documents the form, and the route reads it itself (http/multipart-form.ts).
 */
import { Type, type Static } from '@sinclair/typebox';
import {
  Envelope,
  Id,
  NullableString,
  NullableTimestamp,
  StringEnum,
  Timestamp,
  authErrors,
  errors,
} from '../../../http/schemas.ts';
import { MAX_NAME_CHARS, MAX_QUERY_CHARS, MAX_SEARCH_RESULTS } from '../../../knowledge/limits.ts';

const TAGS = ['knowledge'];
const errorRef = Type.Ref('ErrorBody');

export const CatalogueSchema = Type.Object({
  id: Type.String(),
  organisation_id: Type.String(),
  integration_type: Type.String(),
  external_id: Type.String(),
  name: Type.String(),
  base_url: Type.String({ description: 'upload://<external_id> for upload catalogues' }),
  is_active: Type.Boolean(),
  restaurant_id: NullableString,
  outlet_id: NullableString,
  last_sync_at: NullableTimestamp,
  last_sync_status: Type.Unsafe<string | null>({
    type: ['string', 'null'],
    description: 'OK after an upload was stored, FAILED after one was refused',
  }),
  last_sync_error: NullableString,
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const ProductSchema = Type.Object({
  product_id: Type.String(),
  name: Type.String(),
  category_path: Type.Array(Type.String()),
  price: Type.Unsafe<number | null>({ type: ['number', 'null'] }),
  currency: NullableString,
  in_stock: Type.Boolean(),
  short_description: Type.String(),
});

export const IdParams = Type.Object({ id: Id('Catalogue id') });
export type IdParams = Static<typeof IdParams>;

export const CreateBody = Type.Object(
  {
    integration_type: Type.String({
      minLength: 1,
      maxLength: 40,
      description: 'upload (fed by product files); the only type available',
    }),
    name: Type.Optional(Type.String({ maxLength: MAX_NAME_CHARS, description: 'Default the external_id' })),
    external_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Default a generated id' })),
    base_url: Type.Optional(Type.String({ maxLength: 300, description: 'upload://<external_id> when sent' })),
    restaurant_id: Type.Optional(Type.String({ maxLength: 200 })),
    outlet_id: Type.Optional(Type.String({ maxLength: 200 })),
    is_active: Type.Optional(
      Type.Boolean({ description: 'Inactive catalogues are not searched by agents. Default true.' }),
    ),
  },
  { additionalProperties: false },
);
export type CreateBody = Static<typeof CreateBody>;

export const list = {
  tags: TAGS,
  summary: "The organisation's catalogues",
  response: { 200: Envelope(Type.Array(CatalogueSchema)), ...authErrors },
};

export const create = {
  tags: TAGS,
  summary: 'Create a catalogue',
  description: 'integration_type upload: fed by POST /catalogues/{id}/upload. 409 when the external_id is taken.',
  body: CreateBody,
  response: { 201: Envelope(CatalogueSchema), ...authErrors, ...errors(409) },
};

export const UploadForm = Type.Object({
  file: Type.String({ format: 'binary', description: '.csv (header line) or .json (array of products), at most 4 MB' }),
});

export const upload = {
  tags: TAGS,
  summary: "Upload the catalogue's product file",
  description:
    'multipart/form-data, field `file`. Parsed, indexed and stored within the request; it replaces the products. ' +
    'Columns or keys: product_id (or id, sku), name (or title), category_path (levels split by > or /), price, ' +
    'currency, in_stock (or stock, available, quantity), short_description (or description); other columns are kept ' +
    'as searchable attributes. 400 names the line or product that is wrong; 413 a file over 4 MB or a second file.',
  consumes: ['multipart/form-data'],
  params: IdParams,
  body: UploadForm,
  response: {
    200: Envelope(
      Type.Object({ catalogue_name: Type.String(), products: Type.Integer({ description: 'Products stored' }) }),
    ),
    ...authErrors,
    ...errors(404),
    413: errorRef,
  },
};

export const status = {
  tags: TAGS,
  summary: "A catalogue's processing status",
  params: IdParams,
  response: {
    200: Envelope(
      Type.Object({
        catalogue_id: Type.String(),
        status: StringEnum(['processing', 'ready', 'failed'] as const),
        last_sync_status: NullableString,
        last_sync_at: NullableTimestamp,
        last_sync_error: NullableString,
      }),
    ),
    ...authErrors,
    ...errors(404),
  },
};

export const SearchBody = Type.Object(
  {
    query: Type.String({
      minLength: 1,
      maxLength: MAX_QUERY_CHARS,
      description: 'Words of the product; "in stock", "under 20", "over 10", "between 10 and 20" filter',
    }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SEARCH_RESULTS, default: 5 })),
  },
  { additionalProperties: false },
);
export type SearchBody = Static<typeof SearchBody>;

export const search = {
  tags: TAGS,
  summary: 'Search the products of a catalogue',
  params: IdParams,
  body: SearchBody,
  response: { 200: Envelope(Type.Object({ results: Type.Array(ProductSchema) })), ...authErrors, ...errors(404) },
};
