/**
 * MCP sign-in's refusals, over real HTTP against a real control plane, with the pages driven as a browser would:
 * PKCE missing, plain or wrong; a code used twice (which also cuts the connection it made); redirect URIs that
 * differ (a loopback port may vary); a token for another resource; a refresh token used twice; CSRF tokens missing;
 * login throttling; organisation choice; denial; and the SSRF, size and identity guards of client metadata documents.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { PUBLIC_URL, startTestApp, type TestApp } from './support/app.ts';
import { rewritingFetch, ScriptedBrowser } from './support/oauth-browser.ts';
import { seedOrganisation } from './support/seed.ts';
import { startClientMetadataServer, type ClientMetadataServer } from './support/client-metadata-server.ts';
import { hashPassword } from '../src/oauth/password.ts';
import { insertMember } from '../src/accounts/repository.ts';
import { LOGIN_FAILURES_PER_EMAIL } from '../src/oauth/login-throttle.ts';
import { cookieNames, serializeCookie } from '../src/oauth/browser-session.ts';
import { addressBlocked } from '../src/oauth/client-metadata-fetch.ts';

const MCP_URL = `${PUBLIC_URL}/mcp`;
const REDIRECT = 'http://127.0.0.1:7001/callback';
const PASSWORD = 'a password long enough';

let t: TestApp;
let fetchFn: typeof fetch;
let metadata: ClientMetadataServer;
let clientId: string;
let user: { email: string; organisationId: string; ownerId: string };
let browser: ScriptedBrowser;

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeUrl(params: Record<string, string | undefined>): string {
  const url = new URL(`${PUBLIC_URL}/oauth/authorize`);
  const all = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    resource: MCP_URL,
    state: 's1',
    ...params,
  };
  for (const [name, value] of Object.entries(all)) if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}

/** Runs the pages (the browser is logged in) and returns the redirect back to the host. */
async function approved(params: Record<string, string | undefined>): Promise<URL> {
  const consent = await browser.open(authorizeUrl(params));
  expect(consent.url, consent.html).toContain('/oauth/consent');
  const back = await browser.submit(consent, '/oauth/consent', { decision: 'approve' });
  return new URL(back.url);
}

async function token(fields: Record<string, string>) {
  const response = await fetchFn(`${PUBLIC_URL}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, string>,
  };
}

/** A fresh code and its verifier, for the default client. */
async function freshCode(params: Record<string, string | undefined> = {}) {
  const { verifier, challenge } = pkce();
  const back = await approved({ code_challenge: challenge, code_challenge_method: 'S256', ...params });
  return { code: back.searchParams.get('code')!, verifier };
}

async function mcp(accessToken: string) {
  const response = await fetchFn(MCP_URL, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  return { status: response.status, challenge: response.headers.get('www-authenticate') ?? '' };
}

beforeAll(async () => {
  metadata = await startClientMetadataServer();
  t = await startTestApp({ oauthClientMetadata: { allowPrivate: true, ca: metadata.ca } });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  fetchFn = rewritingFetch(PUBLIC_URL, `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`);
  const registered = await fetchFn(`${PUBLIC_URL}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Refusal Host', redirect_uris: [REDIRECT] }),
  });
  expect(registered.status).toBe(201);
  clientId = ((await registered.json()) as { client_id: string }).client_id;
  const org = await seedOrganisation(t.db.sql, 'Refusals');
  const [row] = await t.db.sql<{ email: string }[]>`select email from users where id = ${org.ownerId}`;
  await t.db.sql`update users set password_hash = ${await hashPassword(PASSWORD)} where id = ${org.ownerId}`;
  user = { email: row!.email, organisationId: org.organisationId, ownerId: org.ownerId };
  browser = new ScriptedBrowser(PUBLIC_URL, fetchFn);
  const login = await browser.open(`${PUBLIC_URL}/oauth/login`);
  const connections = await browser.submit(login, '/oauth/login', { email: user.email, password: PASSWORD });
  expect(connections.url).toBe(`${PUBLIC_URL}/oauth/connections`);
});

afterAll(async () => {
  await t?.close();
  await metadata?.close();
});

describe('PKCE', () => {
  it('refuses an authorization request without code_challenge, or with plain, back at the redirect URI', async () => {
    const missing = new URL((await browser.open(authorizeUrl({}))).url);
    expect(missing.origin + missing.pathname).toBe(REDIRECT);
    expect(missing.searchParams.get('error')).toBe('invalid_request');
    expect(missing.searchParams.get('error_description')).toContain('code_challenge');
    expect(missing.searchParams.get('state')).toBe('s1');
    const { verifier } = pkce();
    const plain = new URL(
      (await browser.open(authorizeUrl({ code_challenge: verifier, code_challenge_method: 'plain' }))).url,
    );
    expect(plain.searchParams.get('error')).toBe('invalid_request');
    expect(plain.searchParams.get('error_description')).toContain('S256');
  });

  it('refuses a wrong or missing verifier, and the code is spent by the attempt', async () => {
    const { code, verifier } = await freshCode();
    const base = { grant_type: 'authorization_code', client_id: clientId, code, redirect_uri: REDIRECT };
    const missing = await token(base);
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_request');
    const wrong = await token({ ...base, code_verifier: pkce().verifier });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringContaining('code_verifier'),
    });
    expect(wrong.headers.get('cache-control')).toBe('no-store');
    const late = await token({ ...base, code_verifier: verifier });
    expect(late.body.error).toBe('invalid_grant');
  });
});

describe('codes', () => {
  it('gives a token once with no-store; a second use is refused and cuts the connection the first one made', async () => {
    const { code, verifier } = await freshCode();
    const fields = {
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    };
    const first = await token(fields);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.body.token_type).toBe('Bearer');
    expect((await mcp(first.body.access_token!)).status).toBe(200);
    const second = await token(fields);
    expect(second.status).toBe(400);
    expect(second.body).toMatchObject({ error: 'invalid_grant', error_description: 'The code was already used' });
    expect((await mcp(first.body.access_token!)).status).toBe(401);
  });

  it('refuses a redirect_uri that differs at the token endpoint, and an unregistered one before any redirect', async () => {
    const { code, verifier } = await freshCode();
    const differs = await token({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: 'http://127.0.0.1:7001/other',
      code_verifier: verifier,
    });
    expect(differs.body).toMatchObject({
      error: 'invalid_grant',
      error_description: expect.stringContaining('redirect_uri'),
    });
    const stranger = await browser.open(
      authorizeUrl({
        redirect_uri: 'https://attacker.example/cb',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
    );
    expect(stranger.status).toBe(400);
    expect(stranger.url.startsWith(PUBLIC_URL)).toBe(true);
    expect(stranger.html).toContain('is not one Refusal Host registered');
  });

  it('lets a loopback redirect change its port (RFC 8252), matched exactly at the token endpoint', async () => {
    const otherPort = 'http://127.0.0.1:53111/callback';
    const { code, verifier } = await freshCode({ redirect_uri: otherPort });
    const ok = await token({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: otherPort,
      code_verifier: verifier,
    });
    expect(ok.status).toBe(200);
  });

  it('sends access_denied back when the user denies', async () => {
    const consent = await browser.open(
      authorizeUrl({ code_challenge: pkce().challenge, code_challenge_method: 'S256' }),
    );
    const back = new URL((await browser.submit(consent, '/oauth/consent', { decision: 'deny' })).url);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
  });
});

describe('resources and scopes', () => {
  it('refuses at /mcp a token issued for another resource (the REST API), which the REST API accepts', async () => {
    const { code, verifier } = await freshCode({ resource: `${PUBLIC_URL}/api/v1` });
    const issued = await token({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      resource: `${PUBLIC_URL}/api/v1`,
    });
    expect(issued.status).toBe(200);
    const refused = await mcp(issued.body.access_token!);
    expect(refused.status).toBe(401);
    expect(refused.challenge).toContain('error="invalid_token"');
    expect(refused.challenge).toContain('another resource');
    const rest = await t.call(issued.body.access_token, { method: 'GET', url: '/api/v1/api-keys/me' });
    expect(rest.json().data.audience).toBe(`${PUBLIC_URL}/api/v1`);
  });

  it('binds a token to the MCP server when an older host names no resource', async () => {
    const { code, verifier } = await freshCode({ resource: undefined });
    const issued = await token({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    expect(issued.status).toBe(200);
    expect((await mcp(issued.body.access_token!)).status).toBe(200);
    const me = await t.call(issued.body.access_token, { method: 'GET', url: '/api/v1/api-keys/me' });
    expect(me.json().data.audience).toBe(MCP_URL);
  });

  it('refuses a resource it does not serve, and a token request naming another resource than the code', async () => {
    const elsewhere = new URL(
      (
        await browser.open(
          authorizeUrl({
            resource: 'https://elsewhere.example/mcp',
            code_challenge: pkce().challenge,
            code_challenge_method: 'S256',
          }),
        )
      ).url,
    );
    expect(elsewhere.searchParams.get('error')).toBe('invalid_target');
    const { code, verifier } = await freshCode();
    const mismatch = await token({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      resource: `${PUBLIC_URL}/api/v1`,
    });
    expect(mismatch.body.error).toBe('invalid_target');
  });

  it('issues fewer scopes when the host asks for fewer, and the key holds only those', async () => {
    const { code, verifier } = await freshCode({ scope: 'agents:read calls:read' });
    const issued = await token({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    expect(issued.body.scope).toBe('agents:read calls:read');
    const me = await t.call(issued.body.access_token, { method: 'GET', url: '/api/v1/api-keys/me' });
    expect(me.json().data.scopes).toEqual(['agents:read', 'calls:read']);
    const refused = await t.call(issued.body.access_token, {
      method: 'GET',
      url: `/api/v1/wallet/${user.organisationId}`,
    });
    expect(refused.statusCode).toBe(403);
  });
});

describe('refresh tokens', () => {
  it('rotates, and a refresh token used twice revokes the connection', async () => {
    const { code, verifier } = await freshCode();
    const issued = await token({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    const rotated = await token({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: issued.body.refresh_token!,
    });
    expect(rotated.status).toBe(200);
    expect((await mcp(issued.body.access_token!)).status).toBe(401);
    expect((await mcp(rotated.body.access_token!)).status).toBe(200);
    const replayed = await token({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: issued.body.refresh_token!,
    });
    expect(replayed.body.error).toBe('invalid_grant');
    expect((await mcp(rotated.body.access_token!)).status).toBe(401);
    const after = await token({
      grant_type: 'refresh_token',
      client_id: clientId,
      refresh_token: rotated.body.refresh_token!,
    });
    expect(after.body.error).toBe('invalid_grant');
  });
});

describe('pages', () => {
  it('refuses forms without the CSRF token', async () => {
    const stranger = new ScriptedBrowser(PUBLIC_URL, fetchFn);
    const login = await stranger.open(`${PUBLIC_URL}/oauth/login`);
    const refused = await stranger.submit(login, '/oauth/login', { email: user.email, password: PASSWORD }, ['csrf']);
    expect(refused.status).toBe(403);
    expect(refused.html).toContain('security token');
    const forged = await stranger.submit(login, '/oauth/login', {
      email: user.email,
      password: PASSWORD,
      csrf: 'x'.repeat(43),
    });
    expect(forged.status).toBe(403);
    const consent = await browser.open(
      authorizeUrl({ code_challenge: pkce().challenge, code_challenge_method: 'S256' }),
    );
    const noToken = await browser.submit(consent, '/oauth/consent', { decision: 'approve' }, ['csrf']);
    expect(noToken.status).toBe(403);
  });

  it('sets HttpOnly SameSite cookies, Secure with __Host- names when the public URL is https', async () => {
    const stranger = new ScriptedBrowser(PUBLIC_URL, fetchFn);
    const response = await fetchFn(`${PUBLIC_URL}/oauth/login`);
    const [csrf] = response.headers.getSetCookie();
    expect(csrf).toMatch(/^parley_csrf=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    const secure = cookieNames('https://parley.example');
    expect(serializeCookie(secure, secure.session, 'v', 1000)).toBe(
      '__Host-parley_session=v; Path=/; HttpOnly; SameSite=Lax; Max-Age=1; Secure',
    );
    expect(stranger.cookies.size).toBe(0);
  });

  it('throttles failed logins per e-mail address', async () => {
    const stranger = new ScriptedBrowser(PUBLIC_URL, fetchFn);
    let page = await stranger.open(`${PUBLIC_URL}/oauth/login`);
    for (let attempt = 0; attempt < LOGIN_FAILURES_PER_EMAIL; attempt++) {
      page = await stranger.submit(page, '/oauth/login', {
        email: `throttled-${user.email}`,
        password: 'wrong password',
      });
      expect(page.status).toBe(401);
    }
    const blocked = await stranger.submit(page, '/oauth/login', {
      email: `throttled-${user.email}`,
      password: 'wrong password',
    });
    expect(blocked.status).toBe(429);
    expect(blocked.html).toContain('Too many failed attempts');
  });

  it('asks which organisation when the user belongs to several', async () => {
    const second = await seedOrganisation(t.db.sql, 'Second Org');
    await insertMember(t.db.sql, { organisationId: second.organisationId, userId: user.ownerId, role: 'EDITOR' });
    const { challenge, verifier } = pkce();
    const picker = await browser.open(authorizeUrl({ code_challenge: challenge, code_challenge_method: 'S256' }));
    expect(picker.url).toContain('/oauth/organisation');
    expect(picker.html).toContain('Second Org');
    const consent = await browser.submit(picker, '/oauth/organisation', { organisation_id: second.organisationId });
    expect(consent.html).toContain('Second Org');
    expect(consent.html).toContain('(editor)');
    const back = new URL((await browser.submit(consent, '/oauth/consent', { decision: 'approve' })).url);
    const issued = await token({
      grant_type: 'authorization_code',
      client_id: clientId,
      code: back.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
    });
    const me = await t.call(issued.body.access_token, { method: 'GET', url: '/api/v1/api-keys/me' });
    expect(me.json().data).toMatchObject({ organisationId: second.organisationId, role: 'EDITOR' });
    await t.db.sql`delete from members where organisation_id = ${second.organisationId} and user_id = ${user.ownerId}`;
  });
});

describe('client metadata documents', () => {
  it('refuses documents too large, naming another client_id, or unreachable', async () => {
    const huge = metadata.url('/huge.json');
    metadata.serve('/huge.json', { client_id: huge, redirect_uris: [REDIRECT], padding: 'x'.repeat(10_000) });
    const liar = metadata.url('/liar.json');
    metadata.serve('/liar.json', { client_id: 'https://someone.else/client.json', redirect_uris: [REDIRECT] });
    const challenge = { code_challenge: pkce().challenge, code_challenge_method: 'S256' };
    const tooLarge = await browser.open(authorizeUrl({ client_id: huge, ...challenge }));
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.html).toContain('larger than');
    const lying = await browser.open(authorizeUrl({ client_id: liar, ...challenge }));
    expect(lying.html).toContain('names another client_id');
    const missing = await browser.open(authorizeUrl({ client_id: metadata.url('/absent.json'), ...challenge }));
    expect(missing.html).toContain('HTTP 404');
  });

  it('never fetches private or loopback addresses unless configured to; registration is rate limited', async () => {
    const guarded = await startTestApp({ db: t.db, bus: t.bus, rateLimits: { oauthRegistration: 1 } });
    const document = metadata.url('/client.json');
    metadata.serve('/client.json', { client_id: document, redirect_uris: [REDIRECT] });
    const query = new URLSearchParams({ client_id: document, redirect_uri: REDIRECT, response_type: 'code' });
    const refused = await guarded.call(undefined, { method: 'GET', url: `/oauth/authorize?${query}` });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('private or loopback');
    // Registration is open to anyone, so it is rate limited per address.
    const register = () =>
      guarded.call(undefined, {
        method: 'POST',
        url: '/oauth/register',
        payload: { client_name: 'Many', redirect_uris: [REDIRECT] },
      });
    expect((await register()).statusCode).toBe(201);
    const limited = await register();
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({
      error: 'invalid_request',
      error_description: expect.stringContaining('Rate limit'),
    });
    await guarded.close();
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '169.254.169.254',
      '192.168.0.1',
      '::1',
      'fd00::1',
      '::ffff:10.0.0.1',
    ]) {
      expect(addressBlocked(address), address).toBe(true);
    }
    for (const address of ['93.184.216.34', '2606:2800:220:1::1', '::ffff:93.184.216.34']) {
      expect(addressBlocked(address), address).toBe(false);
    }
  });
});
