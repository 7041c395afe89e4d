/**
 * The browser pages of MCP sign-in (docs/architecture.md §17), server-rendered HTML without script: the authorize
 * entry, log in, create an account, pick an organisation, approve the permissions, and the connected hosts with
 * their revoke buttons. Every form carries the CSRF token; every POST answers with a redirect (303) or a page.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Sql } from '../../db/database.ts';
import type { Scope } from '../../auth/scopes.ts';
import type { AuthorizationServer } from '../../oauth/authorization-server.ts';
import {
  cookieNames,
  csrfToken,
  csrfValid,
  currentUser,
  endSession,
  parseCookies,
  startSession,
} from '../../oauth/browser-session.ts';
import { LoginThrottle } from '../../oauth/login-throttle.ts';
import { decoyHash, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH, verifyPassword } from '../../oauth/password.ts';
import { activeGrantsOfUser, findLoginUser, membershipsOf, recordLogin } from '../../oauth/repository.ts';
import { SCOPE_WORDS } from '../../oauth/scope-words.ts';
import { signUp } from '../../oauth/sign-up.ts';
import { OAUTH_PATHS } from './endpoints.ts';
import { formFields } from './form.ts';
import { errorLine, escapeHtml, hidden, sendPage } from './html.ts';

const PAGES = {
  login: '/oauth/login',
  signup: '/oauth/signup',
  organisation: '/oauth/organisation',
  consent: '/oauth/consent',
  logout: '/oauth/logout',
} as const;
/** Bounds on what the sign-up form accepts (names shown on pages and in e-mails; RFC 5321's address length). */
const NAME_MAX_LENGTH = 100;
const EMAIL_MAX_LENGTH = 254;
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface PageOptions {
  sql: Sql;
  server: AuthorizationServer;
  publicUrl: string;
}

const HIDE = { schema: { hide: true } };

export default async function oauthPages(app: FastifyInstance, options: PageOptions) {
  const { sql, server } = options;
  const names = cookieNames(options.publicUrl);
  const throttle = new LoginThrottle();

  /** The browser's cookies and CSRF token; a new CSRF cookie is set with the page when it had none. */
  const browser = (request: FastifyRequest) => {
    const cookies = parseCookies(request.headers.cookie);
    const csrf = csrfToken(names, cookies);
    return { cookies, csrf: csrf.token, setCookies: csrf.setCookie ? [csrf.setCookie] : [] };
  };
  const see = (reply: FastifyReply, location: string, cookies: string[] = []) => {
    if (cookies.length) void reply.header('set-cookie', cookies);
    return reply.code(303).header('cache-control', 'no-store').header('location', location).send();
  };
  /** Where a page goes once the user is known: the pending authorization's consent, else the connected hosts. */
  const next = (requestId: string | undefined) =>
    requestId && /^[0-9a-f]{24}$/.test(requestId) ? `${PAGES.consent}?request=${requestId}` : OAUTH_PATHS.connections;
  const requestQuery = (requestId: string | undefined) =>
    requestId && /^[0-9a-f]{24}$/.test(requestId) ? `?request=${requestId}` : '';
  /** A POSTed form whose CSRF token does not match: refused before anything else is read. */
  const forged = (reply: FastifyReply) =>
    sendPage(
      reply,
      403,
      'Form expired',
      '<p>This form could not be accepted (its security token is missing or stale). Go back, reload the page and try again.</p>',
    );

  app.get(OAUTH_PATHS.authorize, HIDE, async (request, reply) => {
    const outcome = await server.begin(formFields(request.query));
    if (outcome.kind === 'page')
      return sendPage(reply, 400, 'This connection cannot be made', `<p>${escapeHtml(outcome.message)}</p>`);
    if (outcome.kind === 'redirect') return reply.code(302).header('location', outcome.location).send();
    return reply.code(302).header('location', `${PAGES.consent}?request=${outcome.authorizationId}`).send();
  });

  const loginPage = (
    reply: FastifyReply,
    status: number,
    csrf: string,
    cookies: string[],
    requestId?: string,
    error?: string,
    email = '',
  ) =>
    sendPage(
      reply,
      status,
      'Log in',
      `${errorLine(error)}<form method="post" action="${PAGES.login}">${hidden('csrf', csrf)}${hidden('request', requestId ?? '')}
<label>E-mail<input type="email" name="email" value="${escapeHtml(email)}" required autocomplete="username"></label>
<label>Password<input type="password" name="password" required autocomplete="current-password"></label>
<button type="submit">Log in</button></form>
<p class="muted">No account yet? <a href="${PAGES.signup}${requestQuery(requestId)}">Create one</a>.</p>`,
      cookies,
    );

  app.get<{ Querystring: Record<string, string> }>(PAGES.login, HIDE, async (request, reply) => {
    const b = browser(request);
    return loginPage(reply, 200, b.csrf, b.setCookies, formFields(request.query).request);
  });

  app.post(PAGES.login, HIDE, async (request, reply) => {
    const b = browser(request);
    const form = formFields(request.body);
    if (!csrfValid(names, b.cookies, form.csrf)) return forged(reply);
    const email = (form.email ?? '').trim();
    const wait = throttle.retryAfterSeconds(email, request.ip);
    if (wait > 0) {
      void reply.header('retry-after', String(wait));
      return loginPage(
        reply,
        429,
        b.csrf,
        [],
        form.request,
        `Too many failed attempts: try again in ${Math.ceil(wait / 60)} minutes.`,
        email,
      );
    }
    const user = email ? await findLoginUser(sql, email) : undefined;
    // An unknown address costs as much time as a wrong password, so the answer's timing tells nothing.
    const valid = await verifyPassword(form.password ?? '', user?.password_hash ?? (await decoyHash()));
    if (!user || !user.password_hash || !valid) {
      throttle.failed(email, request.ip);
      return loginPage(reply, 401, b.csrf, [], form.request, 'The e-mail address or the password is wrong.', email);
    }
    throttle.succeeded(email);
    await recordLogin(sql, user.id);
    return see(reply, next(form.request), [await startSession(sql, names, user.id)]);
  });

  const signupPage = (
    reply: FastifyReply,
    status: number,
    csrf: string,
    cookies: string[],
    requestId?: string,
    error?: string,
    values: Record<string, string | undefined> = {},
  ) =>
    sendPage(
      reply,
      status,
      'Create an account',
      `${errorLine(error)}<form method="post" action="${PAGES.signup}">${hidden('csrf', csrf)}${hidden('request', requestId ?? '')}
<label>Your name<input type="text" name="name" value="${escapeHtml(values.name ?? '')}" required maxlength="${NAME_MAX_LENGTH}" autocomplete="name"></label>
<label>E-mail<input type="email" name="email" value="${escapeHtml(values.email ?? '')}" required maxlength="${EMAIL_MAX_LENGTH}" autocomplete="email"></label>
<label>Password (at least ${PASSWORD_MIN_LENGTH} characters)<input type="password" name="password" required minlength="${PASSWORD_MIN_LENGTH}" maxlength="${PASSWORD_MAX_LENGTH}" autocomplete="new-password"></label>
<label>Organisation name<input type="text" name="organisation" value="${escapeHtml(values.organisation ?? '')}" maxlength="${NAME_MAX_LENGTH}" placeholder="Your own name if left empty"></label>
<button type="submit">Create account</button></form>
<p class="muted">Already have an account? <a href="${PAGES.login}${requestQuery(requestId)}">Log in</a>.</p>`,
      cookies,
    );

  app.get(PAGES.signup, HIDE, async (request, reply) => {
    const b = browser(request);
    return signupPage(reply, 200, b.csrf, b.setCookies, formFields(request.query).request);
  });

  app.post(PAGES.signup, HIDE, async (request, reply) => {
    const b = browser(request);
    const form = formFields(request.body);
    if (!csrfValid(names, b.cookies, form.csrf)) return forged(reply);
    const name = (form.name ?? '').trim();
    const email = (form.email ?? '').trim();
    const password = form.password ?? '';
    const organisation = (form.organisation ?? '').trim() || name;
    const problem =
      !name || name.length > NAME_MAX_LENGTH
        ? `Your name must be 1 to ${NAME_MAX_LENGTH} characters.`
        : !EMAIL_PATTERN.test(email) || email.length > EMAIL_MAX_LENGTH
          ? 'The e-mail address is not valid.'
          : password.length < PASSWORD_MIN_LENGTH || password.length > PASSWORD_MAX_LENGTH
            ? `The password must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters.`
            : organisation.length > NAME_MAX_LENGTH
              ? `The organisation name must be at most ${NAME_MAX_LENGTH} characters.`
              : undefined;
    if (problem) return signupPage(reply, 400, b.csrf, [], form.request, problem, form);
    const result = await signUp(sql, { name, email, password, organisationName: organisation });
    if (result.kind === 'taken') {
      return signupPage(
        reply,
        409,
        b.csrf,
        [],
        form.request,
        'An account with this e-mail address exists: log in instead.',
        form,
      );
    }
    return see(reply, next(form.request), [await startSession(sql, names, result.userId)]);
  });

  /** The logged-in user and the pending authorization of a consent or organisation page, or the answer to give. */
  const consentContext = async (request: FastifyRequest, reply: FastifyReply, requestId: string | undefined) => {
    const b = browser(request);
    const user = await currentUser(sql, names, b.cookies);
    if (!user) return { done: see(reply, `${PAGES.login}${requestQuery(requestId)}`) };
    const pending = requestId ? await server.pending(requestId) : undefined;
    if (!pending) {
      return {
        done: sendPage(
          reply,
          400,
          'This request expired',
          '<p>Start connecting again from your AI host.</p>',
          b.setCookies,
        ),
      };
    }
    const memberships = await membershipsOf(sql, user.id);
    if (memberships.length === 0) {
      return {
        done: sendPage(
          reply,
          403,
          'No organisation',
          '<p>Your account belongs to no organisation yet: ask for an invitation.</p>',
          b.setCookies,
        ),
      };
    }
    return { b, user, pending, memberships };
  };

  app.get(PAGES.organisation, HIDE, async (request, reply) => {
    const requestId = formFields(request.query).request;
    const c = await consentContext(request, reply, requestId);
    if ('done' in c) return c.done;
    const choices = c.memberships
      .map(
        (m, i) =>
          `<label><input type="radio" name="organisation_id" value="${m.organisation_id}"${i === 0 ? ' checked' : ''}> ${escapeHtml(m.name)} <span class="muted">(${m.role.toLowerCase()})</span></label>`,
      )
      .join('\n');
    return sendPage(
      reply,
      200,
      'Pick an organisation',
      `<p>Which organisation should <strong>${escapeHtml(c.pending.client_name)}</strong> work in?</p>
<form method="post" action="${PAGES.organisation}">${hidden('csrf', c.b.csrf)}${hidden('request', c.pending.id)}
${choices}<p><button type="submit">Continue</button></p></form>`,
      c.b.setCookies,
    );
  });

  app.post(PAGES.organisation, HIDE, async (request, reply) => {
    const form = formFields(request.body);
    if (!csrfValid(names, parseCookies(request.headers.cookie), form.csrf)) return forged(reply);
    const c = await consentContext(request, reply, form.request);
    if ('done' in c) return c.done;
    if (!c.memberships.some((m) => m.organisation_id === form.organisation_id)) {
      return see(reply, `${PAGES.organisation}?request=${c.pending.id}`);
    }
    await server.chooseOrganisation(c.pending.id, form.organisation_id!);
    return see(reply, `${PAGES.consent}?request=${c.pending.id}`);
  });

  app.get(PAGES.consent, HIDE, async (request, reply) => {
    const c = await consentContext(request, reply, formFields(request.query).request);
    if ('done' in c) return c.done;
    const organisation =
      c.memberships.find((m) => m.organisation_id === c.pending.organisation_id) ??
      (c.memberships.length === 1 ? c.memberships[0] : undefined);
    if (!organisation) return see(reply, `${PAGES.organisation}?request=${c.pending.id}`);
    const scopes = c.pending.scopes
      .map(
        (scope) =>
          `<li>${escapeHtml(SCOPE_WORDS[scope as Scope] ?? scope)} <span class="muted">(${escapeHtml(scope)})</span></li>`,
      )
      .join('\n');
    const redirectHost = new URL(c.pending.redirect_uri).host || c.pending.redirect_uri;
    return sendPage(
      reply,
      200,
      `Connect ${c.pending.client_name}?`,
      `<p><strong>${escapeHtml(c.pending.client_name)}</strong> wants to use Parley as <strong>${escapeHtml(c.user.email)}</strong> in
<strong>${escapeHtml(organisation.name)}</strong>${c.memberships.length > 1 ? ` (<a href="${PAGES.organisation}?request=${c.pending.id}">change</a>)` : ''}.</p>
<p>It will be able to:</p><ul class="scopes">${scopes}</ul>
<p class="muted">It acts with your role (${organisation.role.toLowerCase()}) and can never do more than you can. You can disconnect it at any
time on <a href="${OAUTH_PATHS.connections}">Connected AI hosts</a>. After approving you go back to ${escapeHtml(redirectHost)}.</p>
<form method="post" action="${PAGES.consent}">${hidden('csrf', c.b.csrf)}${hidden('request', c.pending.id)}${hidden('organisation_id', organisation.organisation_id)}
<button type="submit" name="decision" value="approve">Approve</button> <button type="submit" name="decision" value="deny" class="secondary">Deny</button></form>`,
      c.b.setCookies,
    );
  });

  app.post(PAGES.consent, HIDE, async (request, reply) => {
    const form = formFields(request.body);
    if (!csrfValid(names, parseCookies(request.headers.cookie), form.csrf)) return forged(reply);
    const c = await consentContext(request, reply, form.request);
    if ('done' in c) return c.done;
    if (form.decision !== 'approve') return see(reply, server.deny(c.pending));
    if (!c.memberships.some((m) => m.organisation_id === form.organisation_id)) {
      return see(reply, `${PAGES.consent}?request=${c.pending.id}`);
    }
    const location = await server.approve(c.pending.id, c.user.id, form.organisation_id!);
    if (!location)
      return sendPage(reply, 400, 'This request expired', '<p>Start connecting again from your AI host.</p>');
    return see(reply, location);
  });

  app.get(OAUTH_PATHS.connections, HIDE, async (request, reply) => {
    const b = browser(request);
    const user = await currentUser(sql, names, b.cookies);
    if (!user) return see(reply, PAGES.login);
    const grants = await activeGrantsOfUser(sql, user.id);
    const rows = grants
      .map(
        (g) => `<tr><td>${escapeHtml(g.client_name)}</td><td>${escapeHtml(g.organisation_name)}</td>
<td>${g.created_at.toISOString().slice(0, 10)}</td><td>${g.last_used_at ? g.last_used_at.toISOString().slice(0, 16).replace('T', ' ') : 'never'}</td>
<td><form method="post" action="${OAUTH_PATHS.connections}/${g.id}/revoke">${hidden('csrf', b.csrf)}<button type="submit" class="secondary">Disconnect</button></form></td></tr>`,
      )
      .join('\n');
    return sendPage(
      reply,
      200,
      'Connected AI hosts',
      `<p>Logged in as ${escapeHtml(user.email)}.</p>${
        grants.length
          ? `<table><thead><tr><th>Host</th><th>Organisation</th><th>Connected</th><th>Last used (UTC)</th><th></th></tr></thead><tbody>${rows}</tbody></table>`
          : '<p class="muted">No AI host is connected.</p>'
      }<form method="post" action="${PAGES.logout}">${hidden('csrf', b.csrf)}<p><button type="submit" class="secondary">Log out</button></p></form>`,
      b.setCookies,
    );
  });

  app.post<{ Params: { id: string } }>(`${OAUTH_PATHS.connections}/:id/revoke`, HIDE, async (request, reply) => {
    const cookies = parseCookies(request.headers.cookie);
    if (!csrfValid(names, cookies, formFields(request.body).csrf)) return forged(reply);
    const user = await currentUser(sql, names, cookies);
    if (!user) return see(reply, PAGES.login);
    const revoked = await server.revokeConnection(user.id, request.params.id);
    if (!revoked)
      return sendPage(
        reply,
        404,
        'Not connected',
        `<p>That host is not connected. <a href="${OAUTH_PATHS.connections}">Back</a></p>`,
      );
    return see(reply, OAUTH_PATHS.connections);
  });

  app.post(PAGES.logout, HIDE, async (request, reply) => {
    const cookies = parseCookies(request.headers.cookie);
    if (!csrfValid(names, cookies, formFields(request.body).csrf)) return forged(reply);
    return see(reply, PAGES.login, [await endSession(sql, names, cookies)]);
  });
}
