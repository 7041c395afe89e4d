/**
 * Authentication and authorisation of /api/v1 routes (spec document 3). A route states what it needs in its
 * config: `auth` (who may call: `key` by default, `public`, or `widget`), `scope`, and `roles`.
 * Order of refusals: 401 (no valid key) before 403 (scope, role), both before validation (400), so a caller without
 * rights learns nothing about the route's inputs.
 */
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { KeyStore } from '../../auth/key-store.ts';
import type { Principal } from '../../auth/principal.ts';
import type { Role, Scope } from '../../auth/scopes.ts';
import { ApiError } from '../../errors.ts';

export type AuthMode = 'key' | 'public' | 'widget';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call; default `key` (a management API key). */
    auth?: AuthMode;
    /** Scopes the key must hold, all of them. */
    scope?: Scope | readonly Scope[];
    /** Roles the key owner must hold in the organisation. */
    roles?: readonly Role[];
  }
  interface FastifyRequest {
    /** Set on every authenticated request. */
    principal: Principal | null;
  }
  interface FastifyInstance {
    keys: KeyStore;
  }
}

/** The authenticated caller of a route that requires a key. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiError('unauthorized', 'Missing API key');
  return request.principal;
}

export default fp(
  async function authPlugin(app: FastifyInstance, options: { keys: KeyStore }) {
    app.decorate('keys', options.keys);
    app.decorateRequest('principal', null);
    app.addHook('onRequest', async (request) => {
      const config = request.routeOptions.config;
      const mode = config.auth ?? (request.routeOptions.url?.startsWith('/api/') ? 'key' : 'public');
      if (mode === 'public') return;
      const principal = await app.keys.authenticate(bearerToken(request));
      if (!principal) throw new ApiError('unauthorized', 'Invalid or revoked API key');
      request.principal = principal;
      const required =
        config.scope === undefined ? [] : typeof config.scope === 'string' ? [config.scope] : config.scope;
      // Widget tokens are public and open only the widget routes; management keys never open those.
      if (mode === 'widget' ? principal.kind !== 'widget' : principal.kind !== 'management') {
        throw new ApiError('insufficient_scope', 'Insufficient scope: this key type cannot call this route');
      }
      const missing = required.filter((scope) => !principal.scopes.includes(scope));
      if (missing.length)
        throw new ApiError('insufficient_scope', `Insufficient scope: requires ${missing.join(', ')}`);
      if (config.roles && !config.roles.includes(principal.role)) {
        throw new ApiError('role_required', `The key owner must be ${config.roles.join(' or ')} of the organisation`);
      }
    });
  },
  { name: 'parley-auth' },
);

function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match) throw new ApiError('unauthorized', 'Missing API key: send Authorization: Bearer <API_KEY>');
  return match[1]!;
}
