/**
 * The JSON endpoints of the authorization server (docs/architecture.md §17): its metadata (RFC 8414), the token
 * endpoint, dynamic client registration (RFC 7591) and revocation (RFC 7009). Answers follow OAuth's own format
 * (`{ error, error_description }`), which OAuth clients parse, rather than the REST envelope.
 */
import type { FastifyInstance, FastifyReply, FastifySchema } from 'fastify';
import { CUSTOMER_SCOPES } from '../../auth/scopes.ts';
import type { AuthorizationServer } from '../../oauth/authorization-server.ts';
import type { ClientDirectory } from '../../oauth/clients.ts';
import { OAuthError } from '../../oauth/oauth-error.ts';
import { formFields } from './form.ts';

export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';
export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  revoke: '/oauth/revoke',
  connections: '/oauth/connections',
} as const;

const OAUTH_ERROR = {
  type: 'object',
  required: ['error'],
  properties: {
    error: { type: 'string', description: 'An OAuth error code (RFC 6749 §5.2, RFC 7591, RFC 8707)' },
    error_description: { type: 'string' },
  },
} as const;
const open = (description: string) => ({ type: 'object', additionalProperties: true, description });

function documented(summary: string, description: string, response: Record<number, object>): FastifySchema {
  return { tags: ['oauth'], summary, description, security: [], response } as FastifySchema;
}

function refuse(reply: FastifyReply, error: unknown) {
  if (!(error instanceof OAuthError)) throw error;
  if (error.code === 'invalid_client') void reply.header('www-authenticate', 'Bearer error="invalid_client"');
  return reply.code(error.status).header('cache-control', 'no-store').send(error.body());
}

export interface EndpointOptions {
  server: AuthorizationServer;
  clients: ClientDirectory;
  publicUrl: string;
}

export default async function oauthEndpoints(app: FastifyInstance, options: EndpointOptions) {
  const base = options.publicUrl;

  // What the framework refuses before a handler runs (a body it cannot parse, a content type it does not take) is
  // answered in OAuth's format too: OAuth clients read `error`, and the documented answers have no other shape.
  app.setErrorHandler((error: Error & { statusCode?: unknown; status?: unknown }, request, reply) => {
    // Fastify's errors carry statusCode; the app's own (ApiError, e.g. the storable-text rule) carry status.
    const status = Number(error.statusCode ?? error.status ?? 500);
    if (status >= 400 && status < 500) {
      return reply
        .code(status)
        .header('cache-control', 'no-store')
        .send({ error: 'invalid_request', error_description: error.message });
    }
    request.log.error({ err: error }, 'OAuth request failed');
    return reply.code(500).send({ error: 'server_error', error_description: 'Internal error' });
  });

  // Hosts that run in a browser call these across origins; none of them reads a cookie, so any origin may.
  app.addHook('onSend', async (request, reply) => {
    if (request.method !== 'OPTIONS') void reply.header('access-control-allow-origin', '*');
  });
  for (const path of [
    OAUTH_PATHS.token,
    OAUTH_PATHS.register,
    OAUTH_PATHS.revoke,
    AUTHORIZATION_SERVER_METADATA_PATH,
  ]) {
    app.options(path, { schema: { hide: true } }, async (_request, reply) =>
      reply
        .code(204)
        .header('access-control-allow-origin', '*')
        .header('access-control-allow-methods', 'GET, POST, OPTIONS')
        .header('access-control-allow-headers', 'content-type, authorization, mcp-protocol-version')
        .header('access-control-max-age', '600')
        .send(),
    );
  }

  app.get(
    AUTHORIZATION_SERVER_METADATA_PATH,
    {
      schema: documented(
        'OAuth: authorization server metadata (RFC 8414)',
        'Where AI hosts find the endpoints of MCP sign-in; named by the protected resource metadata of /mcp.',
        { 200: open('The authorization server metadata') },
      ),
    },
    async () => ({
      issuer: base,
      authorization_endpoint: base + OAUTH_PATHS.authorize,
      token_endpoint: base + OAUTH_PATHS.token,
      registration_endpoint: base + OAUTH_PATHS.register,
      revocation_endpoint: base + OAUTH_PATHS.revoke,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      scopes_supported: CUSTOMER_SCOPES,
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${base}/docs`,
    }),
  );

  app.post(
    OAUTH_PATHS.token,
    {
      schema: documented(
        'OAuth: token endpoint (authorization code with PKCE, refresh)',
        'Form-encoded (application/x-www-form-urlencoded). grant_type=authorization_code with client_id, code, ' +
          'redirect_uri (exactly as sent to /oauth/authorize), code_verifier (PKCE S256) and optionally resource; or ' +
          'grant_type=refresh_token with client_id and refresh_token. The access token is an API key made for the ' +
          'host (it does not expire: no expires_in); a refresh gives a new key and refresh token and revokes the old ' +
          'ones. Answers carry Cache-Control: no-store.',
        {
          200: {
            type: 'object',
            required: ['access_token', 'token_type', 'refresh_token', 'scope'],
            properties: {
              access_token: { type: 'string', description: 'An API key (parley_prod_…) for this host' },
              token_type: { type: 'string', enum: ['Bearer'] },
              refresh_token: { type: 'string', description: 'Single use: a refresh returns a new one' },
              scope: { type: 'string', description: 'The approved scopes, space-separated' },
            },
          },
          400: { ...OAUTH_ERROR, description: 'invalid_request, invalid_grant, invalid_target, …' },
          401: { ...OAUTH_ERROR, description: 'invalid_client' },
        },
      ),
    },
    async (request, reply) => {
      void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      try {
        return await options.server.token(formFields(request.body));
      } catch (error) {
        return refuse(reply, error);
      }
    },
  );

  app.post(
    OAUTH_PATHS.register,
    {
      schema: documented(
        'OAuth: dynamic client registration (RFC 7591)',
        'JSON client metadata: redirect_uris (1 to 10: https, http on a loopback address, or an app scheme) ' +
          'required; client_name, client_uri optional. Every client is public (token_endpoint_auth_method none). ' +
          'Hosts that support Client ID Metadata Documents need not register: their client_id is their URL.',
        {
          201: open('The registered client: client_id, client_id_issued_at and the metadata as accepted'),
          400: { ...OAUTH_ERROR, description: 'invalid_redirect_uri or invalid_client_metadata' },
          429: { ...OAUTH_ERROR, description: 'Too many registrations from this address; Retry-After says when' },
        },
      ),
      preHandler: [app.limit('oauthRegistration', 'ip')],
    },
    async (request, reply) => {
      try {
        const client = await options.clients.register(request.body);
        return reply
          .code(201)
          .header('cache-control', 'no-store')
          .send({
            client_id: client.clientId,
            client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000),
            client_name: client.clientName,
            ...(client.clientUri ? { client_uri: client.clientUri } : {}),
            redirect_uris: client.redirectUris,
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none',
          });
      } catch (error) {
        return refuse(reply, error);
      }
    },
  );

  app.post(
    OAUTH_PATHS.revoke,
    {
      schema: documented(
        'OAuth: token revocation (RFC 7009)',
        'Form-encoded: token (the access token or the refresh token) and client_id. Either ends the connection: ' +
          'its key stops working at once. Unknown tokens are answered 200 as well.',
        { 200: { type: 'null', description: 'Revoked (or nothing to revoke)' }, 400: OAUTH_ERROR },
      ),
    },
    async (request, reply) => {
      try {
        await options.server.revoke(formFields(request.body));
        return reply.code(200).send();
      } catch (error) {
        return refuse(reply, error);
      }
    },
  );
}
