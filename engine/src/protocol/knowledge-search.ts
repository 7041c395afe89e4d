/**
 * Knowledge and catalogue search during a call (`v1.kb.search`, request/reply, queue group `control-plane`;
 * docs/architecture.md §14). The engine never touches Postgres: when an agent's knowledge_search or product_search
 * tool is called (or a FLOW knowledge step runs), the engine asks here with the call's organisation and the ids its
 * agent lists, and one control plane answers with the best passages or products — or a failure the model can put
 * into words. The control plane gives itself KB_SEARCH_ANSWER_MS; the engine waits KB_SEARCH_TIMEOUT_MS.
 */
import { Type, type Static } from '@sinclair/typebox';
import { messageCodec } from './message-codec.ts';

/** customVariables keys whose value (an id, a list of ids, or ids separated by commas) gives knowledge_search. */
export const KNOWLEDGE_BASE_VARIABLES = ['knowledge_base_ids', 'knowledge_base_id'] as const;
/** customVariables keys whose value gives product_search. */
export const CATALOGUE_VARIABLES = ['catalogue_ids', 'catalogue_id'] as const;

/** The engine's wait for an answer, ms: a caller on the line notices a pause longer than a couple of seconds. */
export const KB_SEARCH_TIMEOUT_MS = 2_500;
/** The control plane's own budget, ms: it answers "timed out" before the engine gives up, so the model knows why. */
export const KB_SEARCH_ANSWER_MS = 2_000;
/** Ids one search may name: an agent lists a handful of knowledge bases or catalogues, never hundreds. */
export const KB_SEARCH_MAX_IDS = 50;
/** The longest question searched: a spoken question is far shorter. */
export const KB_SEARCH_MAX_QUERY_CHARS = 500;
/** Results one search may ask for. */
export const KB_SEARCH_MAX_RESULTS = 20;

export const KbSearchRequest = Type.Object({
  /** The call's organisation: only its knowledge bases and catalogues are searched. */
  organisationId: Type.String({ minLength: 1 }),
  callId: Type.Optional(Type.String()),
  kind: Type.Union([Type.Literal('knowledge'), Type.Literal('catalogue')]),
  /** Knowledge base or catalogue ids, as the agent's customVariables list them. */
  ids: Type.Array(Type.String(), { maxItems: KB_SEARCH_MAX_IDS }),
  query: Type.String({ minLength: 1, maxLength: KB_SEARCH_MAX_QUERY_CHARS }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: KB_SEARCH_MAX_RESULTS })),
});
export type KbSearchRequest = Static<typeof KbSearchRequest>;

export const KnowledgePassage = Type.Object({
  document_id: Type.String(),
  document_name: Type.String(),
  heading: Type.String(),
  text: Type.String(),
  score: Type.Number(),
});
export type KnowledgePassage = Static<typeof KnowledgePassage>;

/** A product result (spec document 1, "Catalogue"). */
export const ProductResult = Type.Object({
  product_id: Type.String(),
  name: Type.String(),
  category_path: Type.Array(Type.String()),
  price: Type.Union([Type.Number(), Type.Null()]),
  currency: Type.Union([Type.String(), Type.Null()]),
  in_stock: Type.Boolean(),
  short_description: Type.String(),
});
export type ProductResult = Static<typeof ProductResult>;

export const KbSearchReply = Type.Union([
  Type.Object({
    ok: Type.Literal(true),
    passages: Type.Array(KnowledgePassage),
    products: Type.Array(ProductResult),
  }),
  Type.Object({
    ok: Type.Literal(false),
    code: Type.String(),
    message: Type.String(),
    retryable: Type.Boolean(),
  }),
]);
export type KbSearchReply = Static<typeof KbSearchReply>;

export const kbSearchCodecs = {
  request: messageCodec(KbSearchRequest, 'knowledge search request'),
  reply: messageCodec(KbSearchReply, 'knowledge search reply'),
};
