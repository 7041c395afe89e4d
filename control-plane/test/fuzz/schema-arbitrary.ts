/**
 * Values for a field from the route's own schema: mostly what the schema asks for (so requests get past
 * validation and reach services and Postgres), sometimes a hostile value in its place, sometimes a hostile value
 * inside an otherwise valid object (unknown fields, prototype keys). Ids are the seeded tenant's own where the field
 * name says which (the tenant-isolation harness's table), so handlers find rows and go deeper.
 */
import fc from 'fast-check';
import { ID_PATTERN } from '../../src/db/ids.ts';
import { ID_FIELDS } from '../support/isolation/request-synthesis.ts';
import type { TenantIds } from '../support/isolation/tenants.ts';
import { hostileValue } from './hostile-values.ts';

type Schema = Record<string, unknown>;

export interface SchemaContext {
  ids: TenantIds;
  /** How often a field is replaced by a hostile value (0..1). */
  hostility: number;
}

export function fieldValue(
  schema: Schema | undefined,
  name: string,
  context: SchemaContext,
  depth = 0,
): fc.Arbitrary<unknown> {
  const valid = validValue(schema ?? {}, name, context, depth);
  const hostileWeight = Math.round(context.hostility * 100);
  return fc.oneof(
    { weight: 100 - hostileWeight, arbitrary: valid },
    { weight: hostileWeight, arbitrary: hostileValue },
  );
}

function validValue(s: Schema, name: string, context: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  if (depth > 6) return fc.constant(null);
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = s[key];
    if (Array.isArray(branches) && branches.length > 0) {
      return fc.oneof(...branches.map((b) => validValue(b as Schema, name, context, depth + 1)));
    }
  }
  const type = [s.type].flat()[0];
  switch (type) {
    case 'object':
      return objectValue(s, context, depth);
    case 'array':
      return fc.array(fieldValue(s.items as Schema | undefined, name, context, depth + 1), {
        minLength: (s.minItems as number | undefined) ?? 0,
        maxLength: Math.max((s.minItems as number | undefined) ?? 0, 3),
      });
    case 'integer':
      return fc.integer({
        min: (s.minimum as number | undefined) ?? -1000,
        max: (s.maximum as number | undefined) ?? 100_000,
      });
    case 'number':
      return fc.double({
        min: (s.minimum as number | undefined) ?? -1000,
        max: (s.maximum as number | undefined) ?? 1e6,
        noNaN: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'string':
      return stringValue(s, name, context);
    case 'null':
      return fc.constant(null);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function objectValue(s: Schema, context: SchemaContext, depth: number): fc.Arbitrary<unknown> {
  const properties = (s.properties ?? {}) as Record<string, Schema>;
  const required = (s.required ?? []) as string[];
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [key, child] of Object.entries(properties)) model[key] = fieldValue(child, key, context, depth + 1);
  const known = fc.record(model, { requiredKeys: required.filter((key) => key in model) });
  const extra = fc.dictionary(
    fc.constantFrom('unknownField', '__proto__', 'constructor', 'prototype', '', '\u0000', 'a.b', '$where'),
    hostileValue,
    { maxKeys: 2 },
  );
  return fc
    .tuple(known, fc.option(extra, { freq: 4 }))
    .map(([value, more]) => (more ? Object.assign(Object.create(null), value, more) : value));
}

function stringValue(s: Schema, name: string, context: SchemaContext): fc.Arbitrary<string> {
  const known = ID_FIELDS[name];
  if (known) return fc.constant(context.ids[known]);
  if (s.pattern === ID_PATTERN) return fc.constantFrom(...Object.values(context.ids), '0'.repeat(24), 'f'.repeat(24));
  switch (s.format) {
    case 'email':
      return fc.emailAddress();
    case 'date-time':
      return fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((d) => d.toISOString());
    case 'date':
      return fc
        .date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) })
        .map((d) => d.toISOString().slice(0, 10));
    case 'uri':
      return fc.webUrl();
    case 'uuid':
      return fc.uuid();
  }
  if (typeof s.pattern === 'string') {
    try {
      return fc.stringMatching(new RegExp(s.pattern, 'u'));
    } catch {
      // A pattern fast-check cannot generate from (lookarounds): plain text, which the route should refuse cleanly.
    }
  }
  const minLength = (s.minLength as number | undefined) ?? 0;
  const maxLength = Math.min((s.maxLength as number | undefined) ?? 60, 60);
  return fc.string({ minLength, maxLength: Math.max(minLength, maxLength), unit: 'grapheme' });
}
