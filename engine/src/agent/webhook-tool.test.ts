import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callWebhookTool } from './webhook-tool.ts';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
const seen: Seen[] = [];
let base: string;
const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => {
    body += c.toString();
  });
  req.on('end', () => {
    seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
    if (req.url?.startsWith('/slow')) return; // never answers
    if (req.url?.startsWith('/fail')) {
      res.writeHead(503).end('down for maintenance');
      return;
    }
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ slot: 'Tuesday 10:00', echo: body || req.url }));
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const never = new AbortController().signal;

describe('webhook tools', () => {
  it('POSTs the model arguments as JSON with the bearer token and headers, and returns the answer', async () => {
    const outcome = await callWebhookTool(
      {
        key: 'book',
        description: 'Book a slot',
        url: `${base}/book`,
        bearerToken: 'tok-123',
        headers: { 'x-tenant': 'acme' },
      },
      '{"day":"tuesday"}',
      never,
    );
    expect(outcome).toMatchObject({ ok: true, status: 200 });
    expect(JSON.parse(outcome.content)).toMatchObject({ slot: 'Tuesday 10:00' });
    const request = seen.at(-1)!;
    expect(request).toMatchObject({ method: 'POST', url: '/book', body: '{"day":"tuesday"}' });
    expect(request.headers.authorization).toBe('Bearer tok-123');
    expect(request.headers['x-tenant']).toBe('acme');
  });

  it('sends GET arguments as query parameters', async () => {
    await callWebhookTool(
      { key: 'lookup', description: '', url: `${base}/lookup?v=1`, method: 'GET' },
      '{"phone":"+15550100","n":2}',
      never,
    );
    expect(seen.at(-1)!.url).toBe('/lookup?v=1&phone=%2B15550100&n=2');
  });

  it('turns failures into words for the model instead of throwing', async () => {
    const failed = await callWebhookTool({ key: 'f', description: '', url: `${base}/fail` }, '{}', never);
    expect(failed).toMatchObject({ ok: false, status: 503 });
    expect(failed.content).toContain('HTTP 503');
    const slow = await callWebhookTool({ key: 's', description: '', url: `${base}/slow`, timeoutMs: 200 }, '{}', never);
    expect(slow).toMatchObject({ ok: false });
    expect(slow.content).toMatch(/did not answer in time/);
    const unreachable = await callWebhookTool({ key: 'u', description: '', url: 'http://127.0.0.1:1/x' }, '{}', never);
    expect(unreachable.content).toMatch(/could not be reached/);
    const malformed = await callWebhookTool({ key: 'm', description: '', url: `${base}/book` }, '{"day":', never);
    expect(malformed.content).toMatch(/not valid JSON/);
  });

  it('stops at once when the turn is interrupted', async () => {
    const abort = new AbortController();
    const pending = callWebhookTool(
      { key: 's', description: '', url: `${base}/slow`, timeoutMs: 5_000 },
      '{}',
      abort.signal,
    );
    setTimeout(() => abort.abort(), 50);
    await expect(pending).rejects.toThrow();
  });
});
