/**
 * A scripted browser for the MCP sign-in pages: plain HTTP GETs and form posts with a cookie jar, following the
 * server's redirects and stopping at the first one that leaves for the AI host's redirect URI. Forms are read from
 * the real HTML (their action and hidden fields), so the test posts what a browser would.
 */
import { expect } from 'vitest';

export interface PageResult {
  status: number;
  url: string;
  html: string;
}

/** A fetch that sends requests for the public URL to where the test server really listens. */
export function rewritingFetch(publicUrl: string, baseUrl: string): typeof fetch {
  return (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const target = url.startsWith(publicUrl) ? baseUrl + url.slice(publicUrl.length) : url;
    if (input instanceof Request) return fetch(new Request(target, input), init);
    return fetch(target, init);
  };
}

export class ScriptedBrowser {
  readonly cookies = new Map<string, string>();
  readonly #fetch: typeof fetch;
  readonly #publicUrl: string;

  constructor(publicUrl: string, fetchFn: typeof fetch) {
    this.#publicUrl = publicUrl;
    this.#fetch = fetchFn;
  }

  /** GETs a page, following redirects inside Parley; a redirect elsewhere ends the walk with its location. */
  async open(url: string): Promise<PageResult> {
    return this.#walk(url, { method: 'GET' });
  }

  /** Submits the page's form whose action is `action`, with its hidden fields plus `fields` (which win). */
  async submit(page: PageResult, action: string, fields: Record<string, string>, drop: string[] = []) {
    const form = formOf(page.html, action);
    const body = new URLSearchParams({ ...form, ...fields });
    for (const name of drop) body.delete(name);
    return this.#walk(new URL(action, this.#publicUrl).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
    });
  }

  async #walk(url: string, init: RequestInit): Promise<PageResult> {
    let current = url;
    let request = init;
    for (let hop = 0; hop < 10; hop++) {
      if (!current.startsWith(this.#publicUrl)) return { status: 0, url: current, html: '' };
      const response = await this.#fetch(current, {
        ...request,
        redirect: 'manual',
        headers: { ...(request.headers as Record<string, string>), cookie: this.#cookieHeader() },
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const at = pair!.indexOf('=');
        const name = pair!.slice(0, at);
        const value = pair!.slice(at + 1);
        if (/Max-Age=0/i.test(line)) this.cookies.delete(name);
        else this.cookies.set(name, value);
      }
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        current = new URL(location, current).href;
        request = { method: 'GET' };
        continue;
      }
      return { status: response.status, url: current, html: await response.text() };
    }
    throw new Error('too many redirects');
  }

  #cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/** The hidden fields of the form posting to `action` (the first such form). */
export function formOf(html: string, action: string): Record<string, string> {
  const forms = [...html.matchAll(/<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/g)];
  const form = forms.find((match) => decode(match[1]!) === action);
  expect(form, `a form posting to ${action} in:\n${html}`).toBeDefined();
  const fields: Record<string, string> = {};
  for (const input of form![2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[decode(input[1]!)] = decode(input[2]!);
  }
  return fields;
}

function decode(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}
