/**
 * MCP sign-in (docs/architecture.md §17): the OAuth 2.1 authorization server's endpoints and browser pages, in a
 * context of their own (their form parser).
 */
import type { FastifyInstance } from 'fastify';
import type { Sql } from '../../db/database.ts';
import type { AuthorizationServer } from '../../oauth/authorization-server.ts';
import type { ClientDirectory } from '../../oauth/clients.ts';
import oauthEndpoints from './endpoints.ts';
import { installFormParser } from './form.ts';
import oauthPages from './pages.ts';

export interface OAuthRoutesOptions {
  sql: Sql;
  server: AuthorizationServer;
  clients: ClientDirectory;
  publicUrl: string;
}

export default async function oauthRoutes(app: FastifyInstance, options: OAuthRoutesOptions) {
  installFormParser(app);
  await app.register(oauthEndpoints, options);
  await app.register(oauthPages, options);
}
