/** Form bodies (application/x-www-form-urlencoded, as OAuth and HTML forms send them), read as single strings. */
import type { FastifyInstance } from 'fastify';

/** The largest form accepted: OAuth requests and the login forms are well under 1 KB. */
export const FORM_BODY_LIMIT_BYTES = 16 * 1024;

export function installFormParser(app: FastifyInstance): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES },
    (_request, body, done) => {
      const fields: Record<string, string> = {};
      // The first value of a repeated field wins; OAuth forbids repeating parameters anyway.
      for (const [name, value] of new URLSearchParams(body as string)) if (!(name in fields)) fields[name] = value;
      done(null, fields);
    },
  );
}

/** The string fields of a parsed body (form or JSON); anything else is dropped. */
export function formFields(body: unknown): Record<string, string | undefined> {
  const fields: Record<string, string | undefined> = {};
  if (typeof body !== 'object' || body === null) return fields;
  for (const [name, value] of Object.entries(body)) if (typeof value === 'string') fields[name] = value;
  return fields;
}
