import { Type, type Static } from '@sinclair/typebox';
import {
  Envelope,
  Id,
  NullableString,
  NullableTimestamp,
  Timestamp,
  authErrors,
  errors,
} from '../../../http/schemas.ts';
import { CreateWidgetBody, RevokeWidgetBody } from '../../../auth/types.ts';
export { CreateWidgetBody, RevokeWidgetBody, WIDGET_NAME_MIN, WIDGET_NAME_MAX } from '../../../auth/types.ts';

const keyFields = {
  id: Type.String(),
  name: Type.String(),
  key_prefix: Type.String({ description: '8 characters' }),
  last4: Type.String(),
  scopes: Type.Array(Type.String()),
  created_at: Timestamp,
  last_used_at: NullableTimestamp,
  revoked_at: NullableTimestamp,
  organisation_id: Type.String(),
  agent_id: NullableString,
  ai_host: NullableString,
};

export const KeyRecordSchema = Type.Object(keyFields, { $id: 'KeyRecord' });

export const me = {
  tags: ['api-keys'],
  summary: 'Who this key belongs to',
  response: {
    200: Envelope(
      Type.Object({
        keyId: Type.String(),
        name: Type.String(),
        organisationId: Type.String(),
        userId: Type.String({ description: 'The key owner' }),
        role: Type.String({ description: "The key owner's role in the organisation" }),
        scopes: Type.Array(Type.String()),
        features: Type.Array(Type.String(), { description: 'Feature flags enabled for the organisation' }),
        audience: Type.Union([Type.String(), Type.Null()], {
          description:
            'For a key an AI host received through MCP sign-in (OAuth): the resource it was issued for (RFC 8707), ' +
            'e.g. {base_url}/mcp; the MCP server refuses a key issued for another resource. Null for keys made by hand.',
        }),
      }),
    ),
    ...authErrors,
  },
};

export const ListWidgetQuery = Type.Object({
  organisation_id: Id('Own organisation'),
  agent_id: Id('The chat agent'),
});
export type ListWidgetQuery = Static<typeof ListWidgetQuery>;

export const listWidgetTokens = {
  tags: ['widget-tokens'],
  summary: 'Active widget tokens of one chat agent, by fingerprint',
  querystring: ListWidgetQuery,
  response: {
    200: Envelope(Type.Object({ keys: Type.Array(Type.Ref('KeyRecord')), total: Type.Integer() })),
    ...authErrors,
    ...errors(404),
  },
};

export const createWidgetToken = {
  tags: ['widget-tokens'],
  summary: 'Mint a public widget token bound to one chat agent (OWNER or ADMIN; at most 3 active per agent)',
  body: CreateWidgetBody,
  response: {
    201: Envelope(Type.Object({ ...keyFields, key: Type.String({ description: 'The full token, shown once' }) })),
    ...authErrors,
    ...errors(404, 409),
  },
};

export const revokeWidgetToken = {
  tags: ['widget-tokens'],
  summary: 'Revoke one widget token of the named agent (any member role); it stops working at once',
  body: RevokeWidgetBody,
  response: { 200: Envelope(Type.Ref('KeyRecord')), ...authErrors, ...errors(404) },
};
