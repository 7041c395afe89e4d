/**
 * Builds a well-formed request for any route from its schema: path parameters, query and body are filled with the
 * target tenant's ids where a field names one (by field name), and with valid sample values elsewhere. A route
 * whose fields the harness cannot fill well shows up in the control check (the owner's own request is refused as
 * malformed), so a gap here cannot hide a failing isolation check.
 */
import type { TSchema } from '@sinclair/typebox';
import { ID_PATTERN, newId } from '../../../src/db/ids.ts';
import type { RouteEntry } from '../../../src/app.ts';
import type { TenantIds } from './tenants.ts';

/** Which tenant id a field of a given name holds. Extend when a resource adds id fields with new names. */
export const ID_FIELDS: Record<string, keyof TenantIds> = {
  organisationId: 'organisationId',
  orgId: 'organisationId',
  organisation_id: 'organisationId',
  userId: 'memberUserId',
  agentId: 'agentId',
  agent_id: 'chatAgentId',
  voiceAgentId: 'agentId',
  key_id: 'widgetKeyId',
  token: 'invitationToken',
  // Not an id, but a field whose value must be one of the tenant's own (a purchase or routing names its number).
  phoneNumber: 'phoneNumber',
  sessionId: 'callId',
  // Room names are a call's Call ID: the tenant's own call, by path or body (analytics spells it room_name).
  roomName: 'roomName',
  room_name: 'roomName',
  sipTrunkId: 'sipTrunkId',
};

/** Ids of a path `:id` by the route's family (its first segment after /api/v1). */
export const ID_BY_FAMILY: Record<string, keyof TenantIds> = {
  organisations: 'organisationId',
  invitations: 'invitationId',
  agents: 'agentId',
  numbers: 'phoneNumberId',
  // /sip-config/trunks/:id is a trunk, /sip-config/:id a configuration.
  trunks: 'sipTrunkId',
  'sip-config': 'sipConfigurationId',
};

/**
 * Body fields a route needs beyond its schema's required ones, for rules a schema cannot state (a VOICE agent
 * needs a greeting, a PROMPT agent a task). Keyed by `METHOD url` as registered.
 */
export const EXTRA_BODY_FIELDS: Record<string, Record<string, unknown>> = {
  'POST /api/v1/voice/agents': {
    agentTask: 'Answer questions about opening hours',
    greetingMessage: 'Hello, how can I help?',
  },
  // Every credential is required, so the owner's own connect would call the carrier's real API (this app configures
  // no carrier fakes): a subdomain outside the allowed two is refused first (400 subdomain_not_allowed).
  'POST /api/v1/telephony/carrier-c/connect': { subdomain: 'api.carrier.invalid' },
  // A phone call needs the number to call (required for callType sip, which a schema cannot say).
  'POST /api/v1/voice/session': { participantNumber: '+15555550100' },
  // A supported ISO country code (the schema takes any short text; the list is checked by the service).
  'PUT /api/v1/billing/country/:organisationId': { billingCountry: 'US' },
  // A host name (the schema takes any short text; the form is checked by the service).
  'POST /api/v1/sip-config/trunks': { host: 'pbx.example.com' },
};

export interface SynthesisedRequest {
  method: string;
  url: string;
  query?: Record<string, string>;
  payload?: unknown;
}

export function synthesise(route: RouteEntry, ids: TenantIds): SynthesisedRequest {
  const schema = (route.schema ?? {}) as { params?: TSchema; querystring?: TSchema; body?: TSchema };
  const params = schema.params ? (sample(schema.params, '', ids, route) as Record<string, string>) : {};
  const url = route.url.replace(/:(\w+)/g, (_, name: string) =>
    encodeURIComponent(params[name] ?? pathId(name, route, ids)),
  );
  const request: SynthesisedRequest = { method: route.method, url };
  if (schema.querystring) request.query = sample(schema.querystring, '', ids, route) as Record<string, string>;
  if (schema.body && !['GET', 'DELETE'].includes(route.method)) {
    const payload = sample(schema.body, '', ids, route);
    const extra = EXTRA_BODY_FIELDS[`${route.method} ${route.url}`];
    request.payload = extra ? { ...(payload as Record<string, unknown>), ...extra } : payload;
  }
  return request;
}

function pathId(name: string, route: RouteEntry, ids: TenantIds): string {
  const known = ID_FIELDS[name];
  if (known) return ids[known];
  if (name === 'id') {
    // /…/invitations/:id is an invitation even under /organisations/:organisationId.
    const segments = route.url.split('/').filter((s) => s && !s.startsWith(':'));
    const family = [...segments].reverse().find((s) => ID_BY_FAMILY[s]);
    if (family) return ids[ID_BY_FAMILY[family]!];
  }
  return newId();
}

function sample(schema: TSchema, name: string, ids: TenantIds, route: RouteEntry): unknown {
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.anyOf)) return sample(s.anyOf[0] as TSchema, name, ids, route);
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  switch (s.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      const properties = (s.properties ?? {}) as Record<string, TSchema>;
      const required = new Set((s.required ?? []) as string[]);
      for (const [key, child] of Object.entries(properties)) {
        // Optional fields are sent only when they name a tenant's id, so foreign ids are exercised too.
        if (required.has(key) || ID_FIELDS[key]) out[key] = sample(child, key, ids, route);
      }
      return out;
    }
    case 'array':
      return (s.minItems as number | undefined) ? [sample(s.items as TSchema, name, ids, route)] : [];
    case 'integer':
    case 'number':
      return (s.minimum as number | undefined) ?? 1;
    case 'boolean':
      return true;
    case 'string': {
      if (s.pattern === ID_PATTERN) return ID_FIELDS[name] ? ids[ID_FIELDS[name]!] : pathId(name, route, ids);
      if (ID_FIELDS[name]) return ids[ID_FIELDS[name]!];
      if (s.format === 'email') return `someone-${newId()}@example.com`;
      if (s.format === 'date-time') return new Date(Date.now() + 86_400_000).toISOString();
      const min = (s.minLength as number | undefined) ?? 1;
      return 'sample text'.padEnd(min, 'x');
    }
    default:
      return undefined;
  }
}
