/**
 * MCP sign-in end to end: the MCP SDK's own OAuth client (`auth()` of @modelcontextprotocol/sdk) against a real
 * control plane over HTTP, from the 401's WWW-Authenticate through discovery (RFC 9728, RFC 8414), registration (a
 * Client ID Metadata Document served by a local HTTPS server, and dynamic client registration), PKCE, a scripted
 * login or sign-up and consent on the real pages, the token, tools/list with it, refresh rotation, and revocation
 * (the connected-hosts page and RFC 7009) stopping it at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { auth, extractWWWAuthenticateParams, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PUBLIC_URL, startTestApp, type TestApp } from './support/app.ts';
import { rewritingFetch, ScriptedBrowser, type PageResult } from './support/oauth-browser.ts';
import { seedOrganisation } from './support/seed.ts';
import { startClientMetadataServer, type ClientMetadataServer } from './support/client-metadata-server.ts';
import { hashPassword } from '../src/oauth/password.ts';
import { CUSTOMER_SCOPES } from '../src/auth/scopes.ts';

const MCP_URL = `${PUBLIC_URL}/mcp`;
const REDIRECT_URL = 'http://127.0.0.1:8976/callback';

let t: TestApp;
let baseUrl: string;
let fetchFn: typeof fetch;
let metadataServer: ClientMetadataServer;
let metadataUrl: string;
const clients: Client[] = [];

/** The host's side of OAuth: what a real AI host keeps between runs, in memory. */
class TestHost implements OAuthClientProvider {
  authorizationUrl?: URL;
  #client?: OAuthClientInformationMixed;
  #tokens?: OAuthTokens;
  #verifier = '';
  constructor(
    readonly clientMetadataUrl?: string,
    readonly name = 'Test Host',
  ) {}
  get redirectUrl() {
    return REDIRECT_URL;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.name,
      redirect_uris: [REDIRECT_URL],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.#client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.#client = info;
  }
  tokens() {
    return this.#tokens;
  }
  saveTokens(tokens: OAuthTokens) {
    this.#tokens = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }
  codeVerifier() {
    return this.#verifier;
  }
}

/** The 401 of an unauthenticated request, and the resource metadata URL it names. */
async function discover(): Promise<URL> {
  const response = await fetchFn(MCP_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  expect(response.status).toBe(401);
  const { resourceMetadataUrl } = extractWWWAuthenticateParams(response);
  expect(resourceMetadataUrl?.href).toBe(`${PUBLIC_URL}/.well-known/oauth-protected-resource/mcp`);
  return resourceMetadataUrl!;
}

async function mcpStatus(token: string): Promise<number> {
  const response = await fetchFn(MCP_URL, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  return response.status;
}

async function toolNames(host: TestHost): Promise<string[]> {
  const client = new Client({ name: 'oauth-test-host', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(MCP_URL), { authProvider: host, fetch: fetchFn }));
  clients.push(client);
  return (await client.listTools()).tools.map((tool) => tool.name);
}

async function approve(browser: ScriptedBrowser, page: PageResult): Promise<string> {
  expect(page.status, page.html).toBe(200);
  expect(page.url).toContain('/oauth/consent');
  const done = await browser.submit(page, '/oauth/consent', { decision: 'approve' });
  expect(done.url.startsWith(REDIRECT_URL), done.html).toBe(true);
  const url = new URL(done.url);
  expect(url.searchParams.get('iss')).toBe(PUBLIC_URL);
  return url.searchParams.get('code')!;
}

async function userWithPassword(password: string) {
  const org = await seedOrganisation(t.db.sql, 'Sign-in Co');
  const [user] = await t.db.sql<{ email: string }[]>`select email from users where id = ${org.ownerId}`;
  await t.db.sql`update users set password_hash = ${await hashPassword(password)} where id = ${org.ownerId}`;
  return { ...org, email: user!.email };
}

beforeAll(async () => {
  metadataServer = await startClientMetadataServer();
  metadataUrl = metadataServer.url('/oauth/client.json');
  metadataServer.serve('/oauth/client.json', {
    client_id: metadataUrl,
    client_name: 'Metadata Host',
    redirect_uris: [REDIRECT_URL],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  t = await startTestApp({ oauthClientMetadata: { allowPrivate: true, ca: metadataServer.ca } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  fetchFn = rewritingFetch(PUBLIC_URL, baseUrl);
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await t?.close();
  await metadataServer?.close();
});

describe('MCP sign-in with the SDK client', () => {
  it('discovers, registers by metadata document, logs in, approves, lists tools, refreshes with rotation, and is revoked at once', async () => {
    const user = await userWithPassword('correct horse battery');
    const resourceMetadataUrl = await discover();
    const resourceMetadata = await (await fetchFn(resourceMetadataUrl)).json();
    expect(resourceMetadata).toMatchObject({ resource: MCP_URL, authorization_servers: [PUBLIC_URL] });
    const serverMetadata = await (await fetchFn(`${PUBLIC_URL}/.well-known/oauth-authorization-server`)).json();
    expect(serverMetadata).toMatchObject({
      issuer: PUBLIC_URL,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
    });

    const host = new TestHost(metadataUrl);
    expect(await auth(host, { serverUrl: MCP_URL, resourceMetadataUrl, fetchFn })).toBe('REDIRECT');
    const authorizationUrl = host.authorizationUrl!;
    expect(authorizationUrl.searchParams.get('client_id')).toBe(metadataUrl);
    expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorizationUrl.searchParams.get('resource')).toBe(MCP_URL);

    const browser = new ScriptedBrowser(PUBLIC_URL, fetchFn);
    let page = await browser.open(authorizationUrl.href);
    expect(page.url).toContain('/oauth/login');
    page = await browser.submit(page, '/oauth/login', { email: user.email, password: 'correct horse battery' });
    expect(page.html).toContain('Metadata Host');
    expect(page.html).toContain('Place phone calls (they cost money)');
    const code = await approve(browser, page);

    expect(await auth(host, { serverUrl: MCP_URL, resourceMetadataUrl, authorizationCode: code, fetchFn })).toBe(
      'AUTHORIZED',
    );
    const first = host.tokens()!;
    expect(first.access_token).toMatch(/^parley_prod_[a-z0-9]{8}_[0-9a-f]{32}$/);
    expect(first.scope!.split(' ').sort()).toEqual([...CUSTOMER_SCOPES].sort());
    expect(await toolNames(host)).toContain('agents_list');

    // The token is an API key named after the host, with the approved scopes and the MCP server as its audience.
    const me = await t.call(first.access_token, { method: 'GET', url: '/api/v1/api-keys/me' });
    expect(me.json().data).toMatchObject({
      name: 'Metadata Host',
      organisationId: user.organisationId,
      audience: MCP_URL,
    });
    const [key] = await t.db.sql<
      { ai_host: string }[]
    >`select ai_host from api_keys where id = ${me.json().data.keyId}`;
    expect(key!.ai_host).toBe('Metadata Host');

    // Refresh: a new key and refresh token; the old key stops at once.
    expect(await auth(host, { serverUrl: MCP_URL, resourceMetadataUrl, fetchFn })).toBe('AUTHORIZED');
    const second = host.tokens()!;
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(await mcpStatus(first.access_token)).toBe(401);
    expect(await toolNames(host)).toContain('agents_list');

    // The connected-hosts page lists it; disconnecting stops the key at once.
    const connections = await browser.open(`${PUBLIC_URL}/oauth/connections`);
    expect(connections.html).toContain('Metadata Host');
    const action = /action="(\/oauth\/connections\/[0-9a-f]{24}\/revoke)"/.exec(connections.html)![1]!;
    const after = await browser.submit(connections, action, {});
    expect(after.html).toContain('No AI host is connected');
    expect(await mcpStatus(second.access_token)).toBe(401);
    const refused = await fetchFn(`${PUBLIC_URL}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: metadataUrl,
        refresh_token: second.refresh_token!,
      }),
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('registers by dynamic client registration, signs a new user up, and revokes through RFC 7009', async () => {
    const resourceMetadataUrl = await discover();
    const host = new TestHost(undefined, 'Older Host');
    expect(await auth(host, { serverUrl: MCP_URL, resourceMetadataUrl, fetchFn })).toBe('REDIRECT');
    const clientId = host.clientInformation()!.client_id;
    expect(clientId).toMatch(/^parley-client-[0-9a-f]{32}$/);

    const browser = new ScriptedBrowser(PUBLIC_URL, fetchFn);
    const login = await browser.open(host.authorizationUrl!.href);
    const signupLink = /href="(\/oauth\/signup\?request=[0-9a-f]{24})"/.exec(login.html)![1]!;
    const signup = await browser.open(PUBLIC_URL + signupLink);
    const email = `new-${Date.now()}@example.com`;
    const short = await browser.submit(signup, '/oauth/signup', { name: 'New Person', email, password: 'short' });
    expect(short.status).toBe(400);
    expect(short.html).toContain('The password must be');
    const consent = await browser.submit(short, '/oauth/signup', {
      name: 'New Person',
      email,
      password: 'a long enough secret',
      organisation: 'New Person Ltd',
    });
    expect(consent.html).toContain('New Person Ltd');
    const code = await approve(browser, consent);
    expect(await auth(host, { serverUrl: MCP_URL, resourceMetadataUrl, authorizationCode: code, fetchFn })).toBe(
      'AUTHORIZED',
    );
    const tokens = host.tokens()!;
    expect(await toolNames(host)).toContain('account_org');

    const revoked = await fetchFn(`${PUBLIC_URL}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: tokens.access_token, client_id: clientId }),
    });
    expect(revoked.status).toBe(200);
    expect(await mcpStatus(tokens.access_token)).toBe(401);
  });
});
