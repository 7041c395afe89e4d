/**
 * Route schemas of /knowledge-bases (spec document 2, "Knowledge bases"; scopes knowledge:read / knowledge:write).
 * The create form is multipart: its body schema documents the form for OpenAPI, and the route reads and checks the
 * form itself (http/multipart-form.ts), naming the file that broke a limit.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Envelope, Id, NullableString, StringEnum, Timestamp, authErrors, errors } from '../../../http/schemas.ts';
import { LANGUAGE_CHOICES } from '../../../knowledge/languages.ts';
import {
  KNOWLEDGE_FILE_KINDS,
  MAX_DESCRIPTION_CHARS,
  MAX_KNOWLEDGE_FILES,
  MAX_NAME_CHARS,
  MAX_QUERY_CHARS,
  MAX_SEARCH_RESULTS,
} from '../../../knowledge/limits.ts';

const TAGS = ['knowledge'];
const errorRef = Type.Ref('ErrorBody');

export const DocumentSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: NullableString,
  status: StringEnum(['processing', 'ready', 'error'] as const, {
    description: 'processing until chunked and indexed, then ready; error with `error` saying why',
  }),
  error: NullableString,
  source_type: StringEnum(['text', 'file', 'mixed'] as const),
  file_count: Type.Integer(),
  chunk_count: Type.Unsafe<number | null>({ type: ['integer', 'null'], description: 'null while processing' }),
  language: Type.String({ description: 'The text search configuration its chunks are indexed with' }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const IdParams = Type.Object({ id: Id('Knowledge base id') });
export type IdParams = Static<typeof IdParams>;

export const CreateForm = Type.Object({
  name: Type.String({ maxLength: MAX_NAME_CHARS }),
  description: Type.Optional(Type.String({ maxLength: MAX_DESCRIPTION_CHARS })),
  text: Type.Optional(Type.String({ description: 'Text to add; send text, files or both' })),
  language: Type.Optional(
    Type.String({ description: `Language of the content (default english): ${LANGUAGE_CHOICES.join(', ')}` }),
  ),
  files: Type.Optional(
    Type.Array(Type.String({ format: 'binary' }), {
      maxItems: MAX_KNOWLEDGE_FILES,
      description: `Up to ${MAX_KNOWLEDGE_FILES} files of at most 4 MB each: .${KNOWLEDGE_FILE_KINDS.join(', .')}`,
    }),
  ),
});

export const create = {
  tags: TAGS,
  summary: 'Add a knowledge base from text and/or files',
  description:
    'multipart/form-data. Stored at once with status processing, then extracted, chunked and indexed in the ' +
    "background: poll GET /knowledge-bases/{id} until ready, then list its id in an agent's customVariables " +
    '(`knowledge_base_ids`). 413 names the file that is over 4 MB or past the fifth; nothing is stored then. ' +
    'A JSON body of the text fields (no files) is taken too.',
  consumes: ['multipart/form-data', 'application/json'],
  body: CreateForm,
  response: { 201: Envelope(DocumentSchema), ...authErrors, 413: errorRef },
};

export const list = {
  tags: TAGS,
  summary: "The organisation's knowledge bases",
  response: { 200: Envelope(Type.Array(DocumentSchema)), ...authErrors },
};

export const getOne = {
  tags: TAGS,
  summary: 'One knowledge base with its processing status',
  params: IdParams,
  response: { 200: Envelope(DocumentSchema), ...authErrors, ...errors(404) },
};

export const remove = {
  tags: TAGS,
  summary: 'Delete a knowledge base and its chunks',
  description: 'Permanent. Agents that list it keep the id but no longer find anything in it.',
  params: IdParams,
  response: {
    200: Envelope(Type.Object({ deleted: Type.Literal(true), id: Type.String() })),
    ...authErrors,
    ...errors(404),
  },
};

export const SearchBody = Type.Object(
  {
    query: Type.String({
      minLength: 1,
      maxLength: MAX_QUERY_CHARS,
      description: 'A question or words; "quoted" phrases must match as written',
    }),
    knowledge_base_ids: Type.Optional(
      Type.Array(Id(), { maxItems: 50, description: 'Only these knowledge bases (default all of the organisation)' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_SEARCH_RESULTS, default: 5 })),
  },
  { additionalProperties: false },
);
export type SearchBody = Static<typeof SearchBody>;

export const HitSchema = Type.Object({
  document_id: Type.String(),
  document_name: Type.String(),
  heading: Type.String({ description: 'The headings above the passage, outermost first' }),
  text: Type.String(),
  score: Type.Number({ description: 'Higher is better; comparable within one search' }),
});

export const search = {
  tags: TAGS,
  summary: 'Search knowledge bases as an agent does during a call',
  body: SearchBody,
  response: { 200: Envelope(Type.Object({ results: Type.Array(HitSchema) })), ...authErrors },
};
