/**
 * The OAuth 2.1 authorization server of the MCP door (docs/architecture.md §17): authorization requests, the
 * single-use codes consent produces, the token endpoint (code exchange with PKCE S256, refresh with rotation) and
 * revocation. The access token a host receives IS an API key made for that host, with the approved scopes and the
 * resource it is for as its audience; revoking it is revoking a key (broadcast, so it bites everywhere at once).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Sql } from '../db/database.ts';
import type { KeyStore } from '../auth/key-store.ts';
import { hashApiKey, parseApiKey } from '../auth/api-key.ts';
import { insertApiKey, revokeActiveKey } from '../auth/api-key-repository.ts';
import { CUSTOMER_SCOPES, type Scope } from '../auth/scopes.ts';
import type { ClientDirectory } from './clients.ts';
import { OAuthError } from './oauth-error.ts';
import { CHALLENGE_PATTERN, verifierMatches } from './pkce.ts';
import { redirectUriAllowed } from './redirect-uri.ts';
import * as repository from './repository.ts';

/** How long a user has from the host opening the browser to approving: long enough to create an account. */
export const AUTHORIZATION_LIFETIME_MS = 30 * 60_000;
/** How long a code lives: the host exchanges it at once (OAuth 2.1 recommends at most 10 minutes). */
export const CODE_LIFETIME_MS = 60_000;
/** Longest `state` carried through: hosts send a few dozen characters; the bound keeps rows small. */
export const MAX_STATE_LENGTH = 1_000;
/** The longest key name (the host's name); names longer are cut. */
const MAX_KEY_NAME_LENGTH = 100;

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  refresh_token: string;
  scope: string;
}

export type AuthorizeOutcome =
  | { kind: 'ok'; authorizationId: string }
  /** Shown to the user as a page: the client or its redirect URI cannot be trusted with a redirect. */
  | { kind: 'page'; message: string }
  | { kind: 'redirect'; location: string };

export interface AuthorizationServerOptions {
  sql: Sql;
  keys: KeyStore;
  clients: ClientDirectory;
  /** The issuer: PARLEY_PUBLIC_URL. */
  issuer: string;
  /** The resources (RFC 8707) tokens may be issued for; the first is the default when a host names none. */
  resources: readonly string[];
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const secret = () => randomBytes(32).toString('base64url');

export class AuthorizationServer {
  readonly #o: AuthorizationServerOptions;

  constructor(options: AuthorizationServerOptions) {
    this.#o = options;
  }

  get issuer(): string {
    return this.#o.issuer;
  }

  /** Validates an authorization request (GET /oauth/authorize) and keeps it for the login and consent pages. */
  async begin(query: Record<string, string | undefined>): Promise<AuthorizeOutcome> {
    if (!query.client_id) return { kind: 'page', message: 'The request names no client_id.' };
    let client;
    try {
      client = await this.#o.clients.find(query.client_id);
    } catch (error) {
      if (error instanceof OAuthError) return { kind: 'page', message: `This AI host is not known: ${error.message}.` };
      throw error;
    }
    const redirectUri = query.redirect_uri;
    if (!redirectUri) return { kind: 'page', message: 'The request names no redirect_uri.' };
    if (!redirectUriAllowed(redirectUri, client.redirectUris)) {
      return { kind: 'page', message: `The redirect_uri is not one ${client.clientName} registered.` };
    }
    const back = (code: string, description: string): AuthorizeOutcome => ({
      kind: 'redirect',
      location: this.#redirect(redirectUri, { error: code, error_description: description, state: query.state }),
    });
    if (query.response_type !== 'code') return back('unsupported_response_type', 'response_type must be code');
    if (!query.code_challenge) return back('invalid_request', 'code_challenge is required (PKCE with S256)');
    if (query.code_challenge_method !== 'S256') {
      return back('invalid_request', 'code_challenge_method must be S256 (plain is not accepted)');
    }
    if (!CHALLENGE_PATTERN.test(query.code_challenge)) {
      return back('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier (43 characters)');
    }
    if (query.state !== undefined && query.state.length > MAX_STATE_LENGTH) {
      return back('invalid_request', `state is longer than ${MAX_STATE_LENGTH} characters`);
    }
    let resource: string;
    let scopes: Scope[];
    try {
      resource = this.#resource(query.resource);
      scopes = requestedScopes(query.scope);
    } catch (error) {
      if (error instanceof OAuthError) return back(error.code, error.message);
      throw error;
    }
    const authorizationId = await repository.insertAuthorization(this.#o.sql, {
      clientId: client.clientId,
      clientName: client.clientName,
      redirectUri,
      codeChallenge: query.code_challenge,
      state: query.state ?? null,
      scopes,
      resource,
      lifetimeMs: AUTHORIZATION_LIFETIME_MS,
    });
    return { kind: 'ok', authorizationId };
  }

  /** A pending authorization the pages may show, or undefined when it expired or was already answered. */
  pending(authorizationId: string): Promise<repository.AuthorizationRow | undefined> {
    return /^[0-9a-f]{24}$/.test(authorizationId)
      ? repository.findOpenAuthorization(this.#o.sql, authorizationId)
      : Promise.resolve(undefined);
  }

  chooseOrganisation(authorizationId: string, organisationId: string): Promise<void> {
    return repository.chooseOrganisation(this.#o.sql, authorizationId, organisationId);
  }

  /** Consent given: a single-use code, sent back to the host's redirect URI. Undefined when no longer pending. */
  async approve(authorizationId: string, userId: string, organisationId: string): Promise<string | undefined> {
    const code = secret();
    const row = await repository.issueCode(this.#o.sql, {
      id: authorizationId,
      userId,
      organisationId,
      codeHash: sha256(code),
      lifetimeMs: CODE_LIFETIME_MS,
    });
    return row && this.#redirect(row.redirect_uri, { code, state: row.state ?? undefined });
  }

  /** Consent refused: access_denied, sent back to the host. */
  deny(row: repository.AuthorizationRow): string {
    return this.#redirect(row.redirect_uri, {
      error: 'access_denied',
      error_description: 'The user did not approve the connection',
      state: row.state ?? undefined,
    });
  }

  /** POST /oauth/token. */
  async token(params: Record<string, string | undefined>): Promise<TokenResponse> {
    if (!params.client_id) throw new OAuthError('invalid_request', 'client_id is required');
    if (params.grant_type === 'authorization_code') return this.#exchangeCode(params, params.client_id);
    if (params.grant_type === 'refresh_token') return this.#refresh(params, params.client_id);
    throw new OAuthError(
      params.grant_type ? 'unsupported_grant_type' : 'invalid_request',
      'grant_type must be authorization_code or refresh_token',
    );
  }

  async #exchangeCode(params: Record<string, string | undefined>, clientId: string): Promise<TokenResponse> {
    for (const field of ['code', 'redirect_uri', 'code_verifier'] as const) {
      if (!params[field]) throw new OAuthError('invalid_request', `${field} is required`);
    }
    const revoked: string[] = [];
    try {
      return await this.#o.sql.begin(async (tx) => {
        const spent = await repository.spendCode(tx, sha256(params.code!));
        if (!spent) throw new OAuthError('invalid_grant', 'Unknown code');
        const { row } = spent;
        if (!spent.firstUse) {
          // A code presented twice may have been stolen: the connection made with it is cut (OAuth 2.1 §4.1.3).
          const grant = await repository.grantOfAuthorization(tx, row.id);
          const keyId = grant && (await repository.revokeGrant(tx, grant.id));
          if (keyId) revoked.push(keyId);
          throw new OAuthError('invalid_grant', 'The code was already used');
        }
        if (spent.expired) throw new OAuthError('invalid_grant', 'The code expired');
        if (row.client_id !== clientId) throw new OAuthError('invalid_grant', 'The code was issued to another client');
        if (row.redirect_uri !== params.redirect_uri) {
          throw new OAuthError('invalid_grant', 'redirect_uri differs from the one of the authorization request');
        }
        if (!verifierMatches(params.code_verifier!, row.code_challenge)) {
          throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
        }
        if (params.resource !== undefined && this.#resource(params.resource) !== row.resource) {
          throw new OAuthError('invalid_target', 'resource differs from the one of the authorization request');
        }
        const key = await insertApiKey(tx, {
          organisationId: row.organisation_id!,
          userId: row.user_id!,
          name: row.client_name.slice(0, MAX_KEY_NAME_LENGTH),
          scopes: row.scopes as Scope[],
          aiHost: row.client_name,
          audience: row.resource,
        });
        const grantId = await repository.insertGrant(tx, {
          organisation_id: row.organisation_id!,
          user_id: row.user_id!,
          client_id: row.client_id,
          client_name: row.client_name,
          scopes: row.scopes,
          resource: row.resource,
          key_id: key.id,
          authorizationId: row.id,
        });
        const refreshToken = secret();
        await repository.insertRefreshToken(tx, sha256(refreshToken), grantId);
        return {
          access_token: key.key,
          token_type: 'Bearer',
          refresh_token: refreshToken,
          scope: row.scopes.join(' '),
        };
      });
    } catch (error) {
      // The transaction keeps the refusal's own writes (the spent code, a cut connection) only if it commits: a
      // refusal thrown inside rolls them back, so they are redone here, outside it.
      if (error instanceof OAuthError) await this.#keepRefusalEffects(params.code!, revoked);
      throw error;
    }
  }

  /** After a refused exchange: the code stays spent, and a reused code's connection stays cut. */
  async #keepRefusalEffects(code: string, revoked: string[]): Promise<void> {
    await repository.markCodeSpent(this.#o.sql, sha256(code));
    for (const keyId of revoked) {
      const grant = await repository.grantOfKey(this.#o.sql, keyId);
      if (grant) await repository.revokeGrant(this.#o.sql, grant.id);
      await this.#o.keys.revoke({ keyId });
    }
  }

  async #refresh(params: Record<string, string | undefined>, clientId: string): Promise<TokenResponse> {
    if (!params.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required');
    const tokenHash = sha256(params.refresh_token);
    let reused: repository.GrantRow | undefined;
    const rotated = await this.#o.sql
      .begin(async (tx) => {
        const spent = await repository.spendRefreshToken(tx, tokenHash);
        if (!spent || spent.grant.client_id !== clientId)
          throw new OAuthError('invalid_grant', 'Unknown refresh token');
        const { grant } = spent;
        if (grant.revoked_at) throw new OAuthError('invalid_grant', 'The connection was revoked');
        if (!spent.firstUse) {
          reused = grant;
          throw new OAuthError('invalid_grant', 'The refresh token was already used; the connection is revoked');
        }
        if (params.resource !== undefined && this.#resource(params.resource) !== grant.resource) {
          throw new OAuthError('invalid_target', 'resource differs from the one the connection was approved for');
        }
        const asked = params.scope?.split(' ').filter(Boolean) ?? [];
        if (asked.some((scope) => !grant.scopes.includes(scope))) {
          throw new OAuthError('invalid_scope', 'A refresh cannot add scopes: connect the host again to change them');
        }
        const key = await insertApiKey(tx, {
          organisationId: grant.organisation_id,
          userId: grant.user_id,
          name: grant.client_name.slice(0, MAX_KEY_NAME_LENGTH),
          scopes: grant.scopes as Scope[],
          aiHost: grant.client_name,
          audience: grant.resource,
        });
        await revokeActiveKey(tx, grant.key_id);
        await repository.replaceGrantKey(tx, grant.id, key.id);
        const refreshToken = secret();
        await repository.insertRefreshToken(tx, sha256(refreshToken), grant.id);
        const response: TokenResponse = {
          access_token: key.key,
          token_type: 'Bearer',
          refresh_token: refreshToken,
          scope: grant.scopes.join(' '),
        };
        return { response, oldKeyId: grant.key_id };
      })
      .catch(async (error: unknown) => {
        // A refresh token used twice means two parties hold it: the connection is cut (OAuth 2.1 §4.3.1).
        if (reused) await this.#revokeGrant(reused.id);
        throw error;
      });
    await this.#o.keys.revoke({ keyId: rotated.oldKeyId });
    return rotated.response;
  }

  /** POST /oauth/revoke (RFC 7009): an access token (the key) or a refresh token ends the whole connection. */
  async revoke(params: Record<string, string | undefined>): Promise<void> {
    if (!params.token) throw new OAuthError('invalid_request', 'token is required');
    if (!params.client_id) throw new OAuthError('invalid_request', 'client_id is required');
    const parsed = parseApiKey(params.token);
    let grant: repository.GrantRow | undefined;
    if (parsed) {
      const keyId = await repository.keyIdOf(this.#o.sql, parsed.prefix, hashApiKey(params.token));
      grant = keyId ? await repository.grantOfKey(this.#o.sql, keyId) : undefined;
    } else {
      grant = await repository.grantOfRefreshToken(this.#o.sql, sha256(params.token));
    }
    // RFC 7009 §2.2: an unknown token, or one of another client, is answered 200 all the same.
    if (grant && grant.client_id === params.client_id) await this.#revokeGrant(grant.id);
  }

  /** The user's own revocation from the connected-hosts page; false when it is not theirs or already revoked. */
  async revokeConnection(userId: string, grantId: string): Promise<boolean> {
    const grant = /^[0-9a-f]{24}$/.test(grantId) ? await repository.findGrant(this.#o.sql, grantId) : undefined;
    if (!grant || grant.user_id !== userId) return false;
    return this.#revokeGrant(grant.id);
  }

  async #revokeGrant(grantId: string): Promise<boolean> {
    const keyId = await this.#o.sql.begin((tx) => repository.revokeGrant(tx, grantId));
    if (keyId) await this.#o.keys.revoke({ keyId });
    return Boolean(keyId);
  }

  #resource(value: string | undefined): string {
    if (value === undefined || value === '') return this.#o.resources[0]!;
    const normalised = value.replace(/\/+$/, '');
    if (!this.#o.resources.includes(normalised)) {
      throw new OAuthError('invalid_target', `resource must be one of: ${this.#o.resources.join(', ')}`);
    }
    return normalised;
  }

  #redirect(redirectUri: string, params: Record<string, string | undefined>): string {
    const url = new URL(redirectUri);
    for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
    // RFC 9207: the issuer in the response lets a host talking to several servers tell them apart.
    url.searchParams.set('iss', this.#o.issuer);
    return url.href;
  }
}

/** The scopes a host asks for: every customer scope when it names none; names Parley does not know are ignored. */
export function requestedScopes(scope: string | undefined): Scope[] {
  const asked = scope?.split(' ').filter(Boolean) ?? [];
  if (asked.length === 0) return [...CUSTOMER_SCOPES];
  const known = CUSTOMER_SCOPES.filter((s) => asked.includes(s));
  if (known.length === 0) {
    throw new OAuthError('invalid_scope', `scope names none of Parley's scopes (${CUSTOMER_SCOPES.join(' ')})`);
  }
  return known;
}
