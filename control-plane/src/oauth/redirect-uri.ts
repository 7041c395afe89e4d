/**
 * Redirect URI rules: exact string match with a registered URI (OAuth 2.1 §4.1.3), except that a loopback redirect's
 * port may vary (RFC 8252 §7.3: native apps listen on whatever port is free).
 */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

function isLoopback(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

export function redirectUriAllowed(requested: string, registered: readonly string[]): boolean {
  if (registered.includes(requested)) return true;
  const asked = parse(requested);
  if (!asked || !isLoopback(asked)) return false;
  return registered.some((candidate) => {
    const known = parse(candidate);
    if (!known || !isLoopback(known)) return false;
    asked.port = known.port;
    return asked.href === known.href;
  });
}

/** A redirect URI a client may register: https anywhere, http only on loopback, or a private-use scheme (apps). */
export function redirectUriRegistrable(value: string): boolean {
  const url = parse(value);
  if (!url || url.hash) return false;
  if (url.protocol === 'https:') return true;
  if (url.protocol === 'http:') return isLoopback(url);
  // RFC 8252 §7.1: a private-use scheme contains a period (reverse domain name), e.g. com.example.app:/callback.
  return /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol) && url.protocol !== 'javascript:';
}

function parse(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}
