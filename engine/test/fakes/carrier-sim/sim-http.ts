/** HTTP as the simulated carriers speak it: reading API requests, answering them, and calling webhooks. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../http-kit.ts';

/** How long a webhook or answer URL may take, ms: carriers give up after about 15 s. */
export const WEBHOOK_TIMEOUT_MS = 15_000;

export type FormParams = Record<string, string | string[]>;

/** A webhook the carrier called, and what came of it. */
export interface SimRequestRecord {
  url: string;
  method: 'GET' | 'POST';
  params: Record<string, string>;
  headers: Record<string, string>;
  /** The HTTP status, or the network error's message. */
  status: number | string;
  body: string;
}

/** The request's parameters: a form (values repeated under one name become an array) or a JSON object. */
export async function readParams(req: IncomingMessage): Promise<FormParams> {
  const body = (await readBody(req)).toString('utf8');
  const type = req.headers['content-type'] ?? '';
  if (type.includes('application/json')) {
    const value: unknown = body ? JSON.parse(body) : {};
    const out: FormParams = {};
    if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        if (Array.isArray(item)) out[key] = item.map(String);
        else if (item !== null && item !== undefined)
          out[key] = typeof item === 'object' ? JSON.stringify(item) : String(item);
      }
    }
    return out;
  }
  const out: FormParams = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const existing = out[key];
    out[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

/** One value of a parameter (the first, if repeated); `names` are tried in order (carriers accept several spellings). */
export function param(params: FormParams, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = params[name];
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined && first !== '') return first;
  }
  return undefined;
}

/** Every value of the parameters named, split at spaces and commas (`StatusCallbackEvent=initiated ringing`). */
export function paramList(params: FormParams, ...names: string[]): string[] {
  return names.flatMap((name) => {
    const value = params[name];
    return (Array.isArray(value) ? value : value === undefined ? [] : [value])
      .flatMap((v) => v.split(/[\s,]+/))
      .filter(Boolean);
  });
}

/** The request's HTTP basic credentials. */
export function basicAuth(req: IncomingMessage): { user: string; password: string } | undefined {
  const header = req.headers.authorization ?? '';
  if (!header.startsWith('Basic ')) return undefined;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const at = decoded.indexOf(':');
  return at < 0 ? undefined : { user: decoded.slice(0, at), password: decoded.slice(at + 1) };
}

export function reply(res: ServerResponse, status: number, body: unknown, contentType = 'application/json'): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Calls a webhook as a carrier does: form-encoded POST, or GET with the parameters in the query. Never throws. */
export async function callWebhook(
  url: string,
  method: 'GET' | 'POST',
  params: Record<string, string>,
  headers: (target: string) => Record<string, string> = () => ({}),
): Promise<SimRequestRecord> {
  const target = method === 'GET' ? withQuery(url, params) : url;
  const sent = { 'user-agent': 'parley-carrier-simulator', ...headers(target) };
  const record: SimRequestRecord = { url: target, method, params, headers: sent, status: 'not sent', body: '' };
  try {
    const response = await fetch(target, {
      method,
      headers: method === 'POST' ? { ...sent, 'content-type': 'application/x-www-form-urlencoded' } : sent,
      body: method === 'POST' ? new URLSearchParams(params).toString() : undefined,
      signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
    });
    record.status = response.status;
    record.body = await response.text();
  } catch (error) {
    record.status = error instanceof Error ? error.message : String(error);
  }
  return record;
}

/** `url` with `params` added to its query string. */
export function withQuery(url: string, params: Record<string, string>): string {
  const target = new URL(url);
  for (const [key, value] of Object.entries(params)) target.searchParams.append(key, value);
  return target.toString();
}

/** Date and time as Exotel writes them: `YYYY-MM-DD HH:mm:ss`. */
export function exotelTime(date: Date): string {
  return date.toISOString().replace('T', ' ').slice(0, 19);
}
