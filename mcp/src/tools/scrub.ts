/**
 * Spec document 2, MCP rule 5: every tool result is scrubbed. Credential-shaped values (tokens, passwords, API keys,
 * also inside URLs) become `[redacted]` before anything reaches the AI host, which may log or echo what it is shown.
 * The rules err towards redacting: a host never needs a secret to help its user, and a leaked one cannot be recalled.
 */
export const REDACTED = '[redacted]';

/**
 * Field names whose string values are secrets wherever they appear (webhook bearer tokens, carrier auth tokens,
 * passwords, the `key` of a freshly minted token). Identifiers of such things (`keyId`, `tokenId`, `key_prefix`) are
 * not secrets and stay.
 */
const SECRET_FIELD =
  /^(?:.*(?:token|password|passwd|secret|credential|signature)|(?:api|private|access|auth)[-_]?key|key|authorization|auth)$/i;
const IDENTIFIER_FIELD = /(?:id|ids|prefix|last4|name|type|url|expires?at|createdat)$/i;

/** Parley API keys, bearer headers, JWT-shaped strings and vendor keys of the `sk-…` family, wherever they sit in text. */
const SECRET_IN_TEXT = [
  /\bparley_[a-z]+_[a-z0-9]{8}_[0-9a-f]{32}\b/g,
  /\bBearer\s+[\w.~+/-]+=*/gi,
  /\beyJ[\w-]{8,}\.[\w-]{8,}\.[\w-]{8,}\b/g,
  /\b(?:sk|pk|rk)[-_](?:live|test|proj)?[-_]?[A-Za-z0-9]{16,}\b/g,
];

/** Query parameters of a URL whose values are credentials. */
const SECRET_QUERY_PARAM =
  /^(?:.*token|.*secret|.*password|.*signature|key|api[-_]?key|access[-_]?key|auth|sig|code)$/i;
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>]+/gi;

function isSecretField(name: string): boolean {
  return SECRET_FIELD.test(name) && !IDENTIFIER_FIELD.test(name);
}

function scrubUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return raw;
  }
  let changed = false;
  if (url.password) {
    url.password = REDACTED;
    changed = true;
  }
  for (const name of [...url.searchParams.keys()]) {
    if (SECRET_QUERY_PARAM.test(name)) {
      url.searchParams.set(name, REDACTED);
      changed = true;
    }
  }
  // Re-serialising percent-encodes the brackets; put them back so the host reads the marker as text.
  return changed
    ? url.toString().replaceAll(encodeURIComponent(REDACTED), REDACTED).replaceAll('%5Bredacted%5D', REDACTED)
    : raw;
}

export function scrubText(text: string): string {
  let scrubbed = text.replace(URL_IN_TEXT, scrubUrl);
  for (const pattern of SECRET_IN_TEXT) scrubbed = scrubbed.replace(pattern, REDACTED);
  return scrubbed;
}

/** A deep copy of `value` with every credential-shaped value replaced. */
export function scrub(value: unknown): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (Array.isArray(value)) return value.map(scrub);
  if (value && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(value)) {
      copy[name] = typeof field === 'string' && field !== '' && isSecretField(name) ? REDACTED : scrub(field);
    }
    return copy;
  }
  return value;
}
