/**
 * Every number a request may carry has a bound. A schema field without `maximum` (or `minimum`) is validated as if
 * it had the default one: `page=1e20`, `page=Infinity` or `offset=9223372036854775808` would otherwise pass as
 * integers and fail inside Postgres as a 500. Applied by the validator compiler to every schema of every route, so a
 * new route is bounded without thinking; a field that needs a wider range states it. The route's own schema object is
 * left as written (the OpenAPI document shows the bounds a route chose, not this floor).
 */

/** Postgres `integer`; the widest column most numeric fields reach. */
export const DEFAULT_INTEGER_BOUND = 2_147_483_647;
/** Fractional numbers (speeds, amounts): finite and well inside double precision's exact integers. */
export const DEFAULT_NUMBER_BOUND = 1e15;

type Schema = Record<string, unknown>;

const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions'] as const;
const SCHEMA_VALUES = ['additionalProperties', 'items', 'not', 'if', 'then', 'else', 'contains'] as const;
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems', 'items'] as const;

// One copy per schema object: Ajv keys its cache (and refuses a second schema of the same $id) by object.
const copies = new WeakMap<object, unknown>();

/** A copy of `schema` in which every integer and number without a bound has the default one. */
export function withDefaultBounds<T>(schema: T): T {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const known = copies.get(schema);
  if (known) return known as T;
  const out: Schema = { ...(schema as Schema) };
  const types = [out.type].flat();
  const bound = types.includes('number') ? DEFAULT_NUMBER_BOUND : types.includes('integer') ? DEFAULT_INTEGER_BOUND : 0;
  if (bound) {
    if (out.maximum === undefined && out.exclusiveMaximum === undefined) out.maximum = bound;
    if (out.minimum === undefined && out.exclusiveMinimum === undefined) out.minimum = -bound;
  }
  for (const key of SCHEMA_MAPS) {
    const map = out[key];
    if (map && typeof map === 'object') {
      out[key] = Object.fromEntries(Object.entries(map).map(([name, child]) => [name, withDefaultBounds(child)]));
    }
  }
  for (const key of SCHEMA_VALUES) if (isSchema(out[key])) out[key] = withDefaultBounds(out[key]);
  for (const key of SCHEMA_LISTS)
    if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map(withDefaultBounds);
  copies.set(schema, out);
  return out as T;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
