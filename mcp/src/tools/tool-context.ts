/**
 * What a tool knows of its caller and how it reaches Parley: the REST API with the caller's own token, so every
 * refusal (scope, role, tenancy, validation) is the REST API's, word for word (docs/architecture.md §1).
 */
import type { RestClient, RestRequest } from '../rest/rest-client.ts';

/** The connection's key, as GET /api-keys/me describes it. */
export interface Caller {
  token: string;
  keyId: string;
  organisationId: string;
  userId: string;
  role: string;
  scopes: readonly string[];
}

/** A REST answer that was not a success: shown to the host as `<service> API <status>: <message>` (MCP rule 4). */
export class RestFailure extends Error {
  constructor(
    readonly service: string,
    readonly status: number,
    readonly detail: string,
    /** A flow's problems, listed by the agents API beside its message. */
    readonly flowErrors?: unknown,
    /** The REST error envelope's machine-readable code (control-plane ERROR_CODES), when it gave one. */
    readonly code?: string,
  ) {
    super(`${service} API ${status}: ${detail}`);
    this.name = 'RestFailure';
  }
}

function failureDetail(body: unknown): { detail: string; flowErrors?: unknown; code?: string } {
  if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    const detail = [record.message, record.error].find((value): value is string => typeof value === 'string');
    const code = typeof record.code === 'string' ? record.code : undefined;
    return { detail: detail ?? 'Request failed', flowErrors: record.flowErrors, code };
  }
  return { detail: typeof body === 'string' && body ? body.slice(0, 500) : 'Request failed' };
}

export class ToolContext {
  readonly #rest: RestClient;

  constructor(
    readonly caller: Caller,
    rest: RestClient,
    readonly clientAddress?: string,
  ) {
    this.#rest = rest;
  }

  /** MCP rule 2: an explicit org_id wins, otherwise the connection's own organisation. */
  organisation(orgId: string | undefined): string {
    return orgId ?? this.caller.organisationId;
  }

  /**
   * One REST request; answers the envelope's `data` on a 2xx, throws RestFailure otherwise. `service` names the API
   * in the error text the host shows ("Agents API 404: Agent not found").
   */
  async call<T = unknown>(service: string, request: Omit<RestRequest, 'token'>): Promise<T> {
    const response = await this.#rest({ ...request, token: this.caller.token, clientAddress: this.clientAddress });
    if (response.status >= 200 && response.status < 300) {
      const body = response.body as Record<string, unknown> | undefined;
      return (body && typeof body === 'object' && 'data' in body ? body.data : body) as T;
    }
    const { detail, flowErrors, code } = failureDetail(response.body);
    throw new RestFailure(service, response.status, detail, flowErrors, code);
  }
}
