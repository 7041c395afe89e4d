/**
 * The page an invitation e-mail links to: shows what the invitation offers and accepts it with one click, through
 * the public invitation endpoints of the REST API. Plain HTML with a few lines of script: no build step.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';

export default async function invitePageRoutes(app: FastifyInstance) {
  app.get<{ Params: { token: string } }>(
    '/invite/:token',
    {
      schema: { hide: true, params: Type.Object({ token: Type.String({ pattern: '^[0-9a-f]{64}$' }) }) },
      config: { auth: 'public' },
    },
    async (request, reply) => {
      return reply
        .type('text/html; charset=utf-8')
        .header(
          'content-security-policy',
          "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'",
        )
        .send(page(request.params.token));
    },
  );
}

function page(token: string): string {
  // The token is validated as 64 hex characters by the route schema, so it is safe to place in the page as is.
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Parley invitation</title>
<style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1d1d1f}
button{font:inherit;padding:.6rem 1.2rem;border-radius:.4rem;border:0;background:#2450d8;color:#fff;cursor:pointer}
input{font:inherit;padding:.5rem;width:100%;box-sizing:border-box;margin:.3rem 0 1rem}.muted{color:#666}</style></head>
<body><h1>Parley</h1><div id="content" class="muted">Loading the invitation…</div>
<script>
const token = ${JSON.stringify(token)};
const content = document.getElementById('content');
const text = (tag, value) => { const el = document.createElement(tag); el.textContent = value; return el; };
async function load() {
  const res = await fetch('/api/v1/invitations/' + token);
  const body = await res.json();
  content.replaceChildren();
  content.className = '';
  if (!body.success) { content.append(text('p', body.message)); return; }
  const inv = body.data;
  content.append(text('p', inv.invitedBy.name + ' invited ' + inv.email + ' to join ' + inv.organisationName + ' as ' + inv.role + '.'));
  if (inv.status !== 'PENDING') { content.append(text('p', 'This invitation is ' + inv.status.toLowerCase() + '.')); return; }
  const label = text('label', 'Your name');
  const input = document.createElement('input'); input.value = inv.name; label.append(input);
  const button = text('button', 'Accept invitation');
  button.onclick = async () => {
    button.disabled = true;
    const r = await fetch('/api/v1/invitations/' + token + '/accept', { method: 'POST',
      headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: input.value }) });
    const b = await r.json();
    content.replaceChildren(text('p', b.success ? 'Welcome to ' + inv.organisationName + '.' : b.message));
  };
  content.append(label, button);
}
load().catch(() => { content.textContent = 'The invitation could not be loaded.'; });
</script></body></html>`;
}
