/**
 * Whole requests for one route: its path values, query and body generated from its schema (schema-arbitrary.ts),
 * then, for some, the request's bytes broken in one way a client or an attacker breaks them — path values that are
 * too long or badly percent-encoded, query strings that are malformed or repeat keys, bodies that are empty, invalid
 * JSON, deeply nested, huge, or sent with the wrong content type — and keys missing or wrong.
 */
import fc from 'fast-check';
import type { TSchema } from '@sinclair/typebox';
import type { RouteEntry } from '../../src/app.ts';
import { CARRIERS } from '../../src/telephony/carrier.ts';
import { synthesise } from '../support/isolation/request-synthesis.ts';
import type { TenantIds } from '../support/isolation/tenants.ts';
import { hostileText, hostileValue } from './hostile-values.ts';
import { fieldValue, type SchemaContext } from './schema-arbitrary.ts';

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  /** What was done to it, for the failure report. */
  story: string;
}

type Schema = Record<string, unknown>;
type Parts = { params?: TSchema; querystring?: TSchema; body?: TSchema };

/**
 * Percent-encodes text byte by byte as UTF-8 (encodeURIComponent throws on a lone surrogate; here it is sent as the
 * three bytes a careless client would send).
 */
export function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    const bytes =
      code >= 0xd800 && code <= 0xdfff
        ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        : [...Buffer.from(char, 'utf8')];
    out += /^[A-Za-z0-9_.~-]$/.test(char)
      ? char
      : bytes.map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return out;
}

const BROKEN_QUERIES = [
  '%',
  'a=%ZZ',
  '&&&=&',
  'page=1&page=2&page=x',
  '__proto__[polluted]=yes',
  'constructor.prototype.x=1',
  `q=${'z'.repeat(9000)}`,
  '=',
  '?&?',
];
const BROKEN_PATH_VALUES = ['%', '%E0%A4%A', '%C0%AF', '%00', '..%2F..%2Fetc', 'x'.repeat(101), '%F0%9F%98', ' '];
const BROKEN_BODIES = [
  '',
  '{',
  '[',
  'null',
  '"text"',
  '12',
  '{"a":1,}',
  '{"a":"\\u0000"}',
  '{"a":"\\ud800"}',
  '{"__proto__":{"polluted":"yes"}}',
  `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
  '{"n":1e400}',
  `{"s":"${'w'.repeat(1_100_000)}"}`,
];
const CONTENT_TYPES = [
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/xml',
  'garbage/!!',
];

export function requestFor(
  route: RouteEntry,
  ids: TenantIds,
  key: string,
  hostility: number,
): fc.Arbitrary<FuzzRequest> {
  const context: SchemaContext = { ids, hostility };
  const schema = (route.schema ?? {}) as Parts;
  const baseline = synthesise(route, ids);
  const paramNames = [...route.url.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const paramProperties = ((schema.params as Schema | undefined)?.properties ?? {}) as Record<string, Schema>;
  const baselineParams = paramValuesOf(route.url, baseline.url);

  const known = knownPathValues(ids);
  const pathValue = (name: string) =>
    fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...(known[name] ?? [baselineParams[name] ?? ''])).map(percentEncode) },
      { weight: 3, arbitrary: fieldValue(paramProperties[name], name, context).map((v) => percentEncode(asText(v))) },
      { weight: 1, arbitrary: hostileText.map(percentEncode) },
      { weight: 1, arbitrary: fc.constantFrom(...BROKEN_PATH_VALUES) },
    );
  const path = fc.tuple(...paramNames.map(pathValue)).map((values) => {
    let i = 0;
    return route.url.replace(/:(\w+)/g, () => values[i++] ?? '');
  });

  const queryObject = schema.querystring
    ? fieldValue(schema.querystring as Schema, '', { ...context, hostility: hostility / 2 })
    : fc.constant({});
  const query = fc.oneof(
    { weight: 5, arbitrary: queryObject.map((q) => encodeQuery(q)) },
    { weight: 3, arbitrary: oneFieldHostile(baseline.query ?? {}, schema.querystring).map((q) => encodeQuery(q)) },
    { weight: 2, arbitrary: fc.constantFrom(...BROKEN_QUERIES) },
  );

  const hasBody = !['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(route.method);
  const jsonBody = schema.body
    ? fieldValue(schema.body as Schema, '', { ...context, hostility: hostility / 2 })
    : fc.constant(baseline.payload ?? {});
  const body = fc.oneof(
    {
      weight: 8,
      arbitrary: jsonBody.map((b) => ({ payload: safeStringify(b), type: 'application/json', note: 'json' })),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        payload: fc.constantFrom(...BROKEN_BODIES),
        type: fc.constantFrom(...CONTENT_TYPES),
        note: fc.constant('raw'),
      }),
    },
    { weight: 1, arbitrary: jsonBody.map((b) => ({ payload: safeStringify(b), type: '', note: 'no content-type' })) },
  );

  const auth = fc.oneof(
    { weight: 12, arbitrary: fc.constant(`Bearer ${key}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        'Bearer ',
        'Bearer \u0000',
        'Basic Zm9vOmJhcg==',
        `Bearer ${'k'.repeat(5000)}`,
        'Bearer pk_live_%00',
      ),
    },
  );

  return fc.record({ path, query, body, auth }).map(({ path, query, body, auth }) => {
    const headers: Record<string, string> = {};
    if (auth) headers.authorization = auth.replace(/[^\t\x20-\x7e]/g, '?');
    let payload: string | undefined;
    if (hasBody) {
      payload = body.payload;
      if (body.type) headers['content-type'] = body.type;
    }
    const url = query ? `${path}?${query}` : path;
    const story = `${route.method} ${url.slice(0, 300)} [${hasBody ? `${body.note} ${body.type} ${String(payload).slice(0, 200)}` : 'no body'}] auth=${auth.slice(0, 20)}`;
    return { method: route.method, url, headers, payload, story };
  });
}

/**
 * Path values the schema cannot name but a handler needs to go deeper: the webhooks' carrier (a free string in the
 * schema, one of the carriers in fact) and the call they are about.
 */
function knownPathValues(ids: TenantIds): Record<string, string[]> {
  return { carrier: [...CARRIERS], callId: [ids.callId] };
}

/**
 * The well-formed request of the tenant-isolation harness with one field (present or not) set to a hostile value:
 * everything else valid, so the hostile value is what the route's deepest code meets.
 */
function oneFieldHostile(valid: unknown, schema: TSchema | undefined): fc.Arbitrary<unknown> {
  const base =
    typeof valid === 'object' && valid !== null && !Array.isArray(valid) ? (valid as Record<string, unknown>) : {};
  const names = [
    ...new Set([...Object.keys(base), ...Object.keys(((schema as Schema | undefined)?.properties ?? {}) as object)]),
  ];
  if (names.length === 0) return fc.constant(valid);
  return fc
    .record({ name: fc.constantFrom(...names), value: hostileValue })
    .map(({ name, value }) => ({ ...base, [name]: value }));
}

function paramValuesOf(pattern: string, url: string): Record<string, string> {
  const names = [...pattern.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const regex = new RegExp(`^${pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, '([^/]*)')}$`);
  const match = regex.exec(url);
  return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match?.[i + 1] ?? '')]));
}

function encodeQuery(value: unknown): string {
  if (typeof value !== 'object' || value === null) return `value=${percentEncode(asText(value))}`;
  const pairs: string[] = [];
  for (const [key, item] of Object.entries(value)) {
    for (const one of Array.isArray(item) ? item : [item]) {
      const text = asText(one);
      pairs.push(`${percentEncode(key)}=${percentEncode(text)}`);
    }
  }
  return pairs.join('&');
}

/** A value as text: objects (some without a prototype, so without toString) as their JSON. */
function asText(value: unknown): string {
  return typeof value === 'object' && value !== null ? safeStringify(value) : String(value);
}

function safeStringify(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? 'null';
}
