/**
 * OAuth clients (AI hosts): identified by a Client ID Metadata Document URL (fetched, validated and cached here) or
 * registered by dynamic client registration (RFC 7591; stored). Every client is public: PKCE protects its codes.
 */
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/database.ts';
import { fetchClientMetadata, type ClientMetadataFetchOptions } from './client-metadata-fetch.ts';
import { OAuthError } from './oauth-error.ts';
import { insertClient, findClient } from './repository.ts';
import { redirectUriRegistrable } from './redirect-uri.ts';

export interface OAuthClient {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  clientUri: string | null;
}

/** How long a fetched metadata document is trusted before it is fetched again. */
export const CLIENT_METADATA_CACHE_MS = 5 * 60_000;
/** Bound on cached documents per process; the oldest is dropped first. */
export const CLIENT_METADATA_CACHE_MAX = 1_000;
/** Bounds on what a client may register: enough for any real host, small enough to store and show. */
export const MAX_REDIRECT_URIS = 10;
export const MAX_CLIENT_NAME_LENGTH = 100;
export const MAX_URI_LENGTH = 2_000;

export class ClientDirectory {
  readonly #sql: Queryable;
  readonly #fetch: ClientMetadataFetchOptions;
  readonly #cache = new Map<string, { client: OAuthClient; until: number }>();

  constructor(sql: Queryable, fetchOptions: ClientMetadataFetchOptions) {
    this.#sql = sql;
    this.#fetch = fetchOptions;
  }

  /** The client of a client_id, or invalid_client. */
  async find(clientId: string): Promise<OAuthClient> {
    if (clientId.startsWith('https://')) return this.#fromDocument(clientId);
    const row = clientId.length <= 64 ? await findClient(this.#sql, clientId) : undefined;
    if (!row) throw new OAuthError('invalid_client', 'Unknown client_id: register the client first');
    return row;
  }

  /** RFC 7591 registration of a public client. */
  async register(metadata: unknown): Promise<OAuthClient & { createdAt: Date }> {
    const parsed = parseClientMetadata(metadata, 'invalid_client_metadata');
    const client = { ...parsed, clientId: `parley-client-${randomBytes(16).toString('hex')}` };
    const createdAt = await insertClient(this.#sql, client);
    return { ...client, createdAt };
  }

  async #fromDocument(clientId: string): Promise<OAuthClient> {
    const cached = this.#cache.get(clientId);
    if (cached && cached.until > Date.now()) return cached.client;
    let url: URL;
    try {
      url = new URL(clientId);
    } catch {
      throw new OAuthError('invalid_client', 'client_id is not a URL');
    }
    if (url.pathname === '/' || url.hash || url.username || url.password || clientId.length > MAX_URI_LENGTH) {
      throw new OAuthError(
        'invalid_client',
        'client_id must be an https URL with a path, no fragment and no credentials',
      );
    }
    const document = await fetchClientMetadata(url, this.#fetch);
    if ((document as { client_id?: unknown } | null)?.client_id !== clientId) {
      throw new OAuthError('invalid_client', 'the client metadata document names another client_id');
    }
    const client = { ...parseClientMetadata(document, 'invalid_client'), clientId };
    this.#cache.delete(clientId);
    this.#cache.set(clientId, { client, until: Date.now() + CLIENT_METADATA_CACHE_MS });
    if (this.#cache.size > CLIENT_METADATA_CACHE_MAX) this.#cache.delete(this.#cache.keys().next().value!);
    return client;
  }
}

function parseClientMetadata(
  metadata: unknown,
  code: 'invalid_client' | 'invalid_client_metadata',
): Omit<OAuthClient, 'clientId'> {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw new OAuthError(code, 'client metadata must be a JSON object');
  }
  const m = metadata as Record<string, unknown>;
  const uris = m.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS) {
    throw new OAuthError(
      code === 'invalid_client_metadata' ? 'invalid_redirect_uri' : code,
      `redirect_uris must list 1 to ${MAX_REDIRECT_URIS} URIs`,
    );
  }
  for (const uri of uris) {
    if (typeof uri !== 'string' || uri.length > MAX_URI_LENGTH || !redirectUriRegistrable(uri)) {
      throw new OAuthError(
        code === 'invalid_client_metadata' ? 'invalid_redirect_uri' : code,
        `redirect_uris: ${JSON.stringify(uri)} is not allowed (https, http on loopback, or an app's own scheme)`,
      );
    }
  }
  const method = m.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none' && code === 'invalid_client') {
    throw new OAuthError(code, 'token_endpoint_auth_method must be none: Parley has public clients only');
  }
  for (const [field, value] of [
    ['grant_types', m.grant_types],
    ['response_types', m.response_types],
  ] as const) {
    if (value !== undefined && !Array.isArray(value)) throw new OAuthError(code, `${field} must be an array`);
  }
  const grants = (m.grant_types as unknown[] | undefined) ?? ['authorization_code'];
  if (!grants.includes('authorization_code')) {
    throw new OAuthError(code, 'grant_types must include authorization_code');
  }
  const name = typeof m.client_name === 'string' ? m.client_name.trim().slice(0, MAX_CLIENT_NAME_LENGTH) : '';
  const clientUri =
    typeof m.client_uri === 'string' && m.client_uri.length <= MAX_URI_LENGTH && /^https?:\/\//.test(m.client_uri)
      ? m.client_uri
      : null;
  return {
    clientName: name || (clientUri ? new URL(clientUri).host : 'An AI host'),
    redirectUris: uris as string[],
    clientUri,
  };
}
