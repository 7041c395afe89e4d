import { Type, type Static } from '@sinclair/typebox';
import { Envelope, StringEnum, authErrors, errors } from '../../../http/schemas.ts';
import { FIELD_TYPES } from '../../../enhancement/field-prompts.ts';

/** Spec document 2: enhance-fields takes 1 to 7 fields, one per field type. */
export const ENHANCE_FIELDS_MIN = 1;
export const ENHANCE_FIELDS_MAX = 7;
/**
 * Longest text accepted per field, in characters: twice the instruction budget (4,000 characters for identity,
 * personality, task and pronunciation together), so no real field is refused while a pasted document is.
 */
export const ENHANCE_TEXT_MAX_CHARS = 8_000;

const FieldType = StringEnum(FIELD_TYPES, { description: 'Which agent field the text is' });

const FieldInput = Type.Object(
  {
    fieldType: FieldType,
    text: Type.String({
      maxLength: ENHANCE_TEXT_MAX_CHARS,
      description:
        'The current text of the field; must not be empty or only whitespace. `{{placeholders}}` are kept as they are.',
    }),
  },
  { additionalProperties: false },
);
export type FieldInput = Static<typeof FieldInput>;

export const EnhanceFieldBody = FieldInput;
export type EnhanceFieldBody = FieldInput;

export const EnhanceFieldsBody = Type.Object(
  {
    fields: Type.Array(FieldInput, {
      minItems: ENHANCE_FIELDS_MIN,
      maxItems: ENHANCE_FIELDS_MAX,
      description: `${ENHANCE_FIELDS_MIN} to ${ENHANCE_FIELDS_MAX} fields, each rewritten independently and in parallel`,
    }),
  },
  { additionalProperties: false },
);
export type EnhanceFieldsBody = Static<typeof EnhanceFieldsBody>;

const EnhancedField = Type.Object({
  fieldType: FieldType,
  originalText: Type.String(),
  enhancedText: Type.String(),
});

/**
 * 500: the language model failed (its message is passed through, naming the field); 503: no language model is
 * available (none configured, or no LLM worker running).
 */
const modelErrors = { 500: Type.Ref('ErrorBody'), ...errors(503) };

export const enhanceField = {
  tags: ['ai-enhancement'],
  summary: 'Rewrite one agent field with the language model; nothing is saved',
  description:
    'Rate limited to 30 requests per minute per client address and 20 per key (defaults). 400 for an unknown ' +
    'fieldType or empty text; 500 when the language model fails (its message is passed through); 503 when no ' +
    'language model is configured or no LLM worker is running.',
  body: EnhanceFieldBody,
  response: { 200: Envelope(EnhancedField), ...authErrors, ...modelErrors },
};

export const enhanceFields = {
  tags: ['ai-enhancement'],
  summary: 'Rewrite 1 to 7 agent fields in parallel; all or nothing; nothing is saved',
  description:
    'Each field is rewritten on its own, all at once; if any fails, the request fails and no result is returned. ' +
    'Results come in the order of `fields`. Errors and rate limits as for enhance-field; 400 also when not 1 to 7 fields.',
  body: EnhanceFieldsBody,
  response: { 200: Envelope(Type.Object({ results: Type.Array(EnhancedField) })), ...authErrors, ...modelErrors },
};
