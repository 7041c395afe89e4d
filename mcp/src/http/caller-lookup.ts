/**
 * Who is calling the MCP endpoint: the bearer token, looked up through the REST API's GET /api-keys/me on every
 * request, so a revoked key stops working at once (spec document 3, MCP rule 4) and the MCP server keeps no keys.
 */
import type { RestClient } from '../rest/rest-client.ts';
import type { Caller } from '../tools/tool-context.ts';

export type CallerLookup =
  /** audience: the resource an OAuth-issued key is for (RFC 8707), null for keys made by hand. */
  { kind: 'ok'; caller: Caller; audience: string | null } | { kind: 'refused'; status: number; message: string };

/** The token of an `Authorization: Bearer <token>` header, else undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

export async function lookUpCaller(rest: RestClient, token: string, clientAddress: string): Promise<CallerLookup> {
  const response = await rest({ method: 'GET', path: '/api-keys/me', token, clientAddress });
  const body = response.body as { data?: Record<string, unknown>; message?: string } | undefined;
  if (response.status !== 200 || !body?.data) {
    return {
      kind: 'refused',
      status: response.status === 200 ? 502 : response.status,
      message: body?.message ?? 'The key could not be checked',
    };
  }
  const data = body.data;
  return {
    kind: 'ok',
    audience: typeof data.audience === 'string' ? data.audience : null,
    caller: {
      token,
      keyId: String(data.keyId),
      organisationId: String(data.organisationId),
      userId: String(data.userId),
      role: String(data.role),
      scopes: Array.isArray(data.scopes) ? data.scopes.map(String) : [],
    },
  };
}
