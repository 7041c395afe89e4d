/** The look of the sign-in pages (the invitation page's style) and HTML escaping: plain server-rendered HTML. */
import type { FastifyReply } from 'fastify';

export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** A page: no script at all, so the content security policy forbids every script. */
export function sendPage(reply: FastifyReply, status: number, title: string, body: string, cookies: string[] = []) {
  if (cookies.length) void reply.header('set-cookie', cookies);
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)} · Parley</title>
<style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1d1d1f}
button{font:inherit;padding:.6rem 1.2rem;border-radius:.4rem;border:0;background:#2450d8;color:#fff;cursor:pointer}
button.secondary{background:#e5e5ea;color:#1d1d1f}
input[type=text],input[type=email],input[type=password]{font:inherit;padding:.5rem;width:100%;box-sizing:border-box;margin:.3rem 0 1rem}
label{display:block}.muted{color:#666}.error{color:#b00020}ul.scopes li{margin:.3rem 0}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.4rem;border-bottom:1px solid #ddd}</style></head>
<body><h1>Parley</h1><h2>${escapeHtml(title)}</h2>${body}</body></html>`);
}

export function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
}

export function errorLine(message: string | undefined): string {
  return message ? `<p class="error" role="alert">${escapeHtml(message)}</p>` : '';
}
