/**
 * Request validation. Query strings, path parameters and headers arrive as text, so their validator coerces
 * ("20" → 20); bodies are JSON and are checked as sent, so `"name": 5` is refused rather than quietly turned into
 * "5". Every problem is reported (allErrors), each naming its field, and unknown fields are refused rather than
 * silently dropped wherever a schema closes its properties. Every number is bounded (bounded-schema.ts).
 */
import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { ID_PATTERN } from '../db/ids.ts';
import { withDefaultBounds } from './bounded-schema.ts';
import type { FieldProblem } from '../errors.ts';

// ajv-formats is CommonJS with a default export; under NodeNext its namespace object is what `import` yields.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const common: Options = { allErrors: true, removeAdditional: false, useDefaults: true, strict: false };
// verbose: each error carries the schema that raised it, where its own words (x-error-message) may stand.
const bodyAjv = addFormats(new Ajv({ ...common, coerceTypes: false, verbose: true }));
const textAjv = addFormats(new Ajv({ ...common, coerceTypes: 'array' }));

export const validatorCompiler: FastifySchemaCompiler<object> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? bodyAjv : textAjv).compile(withDefaultBounds(schema));

/** A field schema's own words for its errors; an OpenAPI extension, so the document may show it. */
const OWN_WORDS = 'x-error-message';

/**
 * Turns ajv's errors into one problem per field, in words a caller can act on. A field schema may carry its own
 * words in `x-error-message` (used for rules that depend on another field, written as if/then): they replace ajv's
 * for any error of that schema, including the field's absence where the rule requires it.
 */
export function fieldProblems(errors: readonly ErrorObject[]): FieldProblem[] {
  const problems = new Map<string, string>();
  const ruleProblems: FieldProblem[] = [];
  for (const error of errors) {
    // "must match then schema" only repeats the errors inside the branch, which are reported themselves.
    if (error.keyword === 'if') continue;
    const base = error.instancePath.split('/').filter(Boolean).join('.');
    const own = ownWords(error, base);
    if (own) ruleProblems.push(own);
    else {
      const { field, message } = describe(error, base);
      if (!problems.has(field)) problems.set(field, message);
    }
  }
  // A field's own shape comes first: `"agentTask": 5` is "must be a string", not "is required unless …".
  for (const { field, message } of ruleProblems) if (!problems.has(field)) problems.set(field, message);
  return [...problems].map(([field, message]) => ({ field: field || 'body', message }));
}

/** The schema's own words for this error, when it has them (bodies only: their validator is verbose). */
function ownWords(error: ErrorObject, base: string): FieldProblem | undefined {
  type WithWords = { [OWN_WORDS]?: unknown };
  const schema = error.parentSchema as (WithWords & { properties?: Record<string, WithWords> }) | undefined;
  if (error.keyword === 'required') {
    const missing = String((error.params as { missingProperty: string }).missingProperty);
    const message = schema?.properties?.[missing]?.[OWN_WORDS];
    return typeof message === 'string' ? { field: base ? `${base}.${missing}` : missing, message } : undefined;
  }
  const message = schema?.[OWN_WORDS];
  return typeof message === 'string' ? { field: base, message } : undefined;
}

function describe(error: ErrorObject, base: string): FieldProblem {
  const params = error.params as Record<string, unknown>;
  const join = (name: unknown) => (base ? `${base}.${String(name)}` : String(name));
  switch (error.keyword) {
    case 'required':
      return { field: join(params.missingProperty), message: 'is required' };
    case 'additionalProperties':
      return { field: join(params.additionalProperty), message: 'is not an accepted field' };
    case 'enum':
      return { field: base, message: `must be one of: ${(params.allowedValues as unknown[]).join(', ')}` };
    case 'const':
      return { field: base, message: `must be ${JSON.stringify(params.allowedValue)}` };
    case 'format':
      return { field: base, message: `must be a valid ${String(params.format)}` };
    case 'pattern':
      return {
        field: base,
        message:
          params.pattern === ID_PATTERN
            ? 'must be a 24-character hexadecimal id'
            : `must match ${String(params.pattern)}`,
      };
    case 'type':
      return { field: base, message: `must be ${article(String(params.type))}` };
    case 'minLength':
      return { field: base, message: `must be at least ${String(params.limit)} characters long` };
    case 'maxLength':
      return { field: base, message: `must be at most ${String(params.limit)} characters long` };
    case 'anyOf':
    case 'oneOf':
      return { field: base, message: 'does not match any accepted form' };
    default:
      return { field: base, message: error.message ?? 'is invalid' };
  }
}

function article(type: string): string {
  const words = type.split(',').map((t) => (/^[aeiou]/.test(t) ? `an ${t}` : `a ${t}`));
  return words.join(' or ');
}
