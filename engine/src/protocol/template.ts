/**
 * `{{variable}}` placeholders in agent text (greeting, instructions), filled from the call's customVariables. Part of
 * the contract: the control plane stores the text, the engine fills it per call, the greeting cache fills it ahead.
 * Names may use letters, digits, `_`, `.` and `-`, with spaces allowed inside the braces. A placeholder with no
 * value is left out rather than spoken as braces.
 */

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

export type Variables = Readonly<Record<string, unknown>>;

export function fillTemplate(text: string, variables: Variables): string {
  return text
    .replace(PLACEHOLDER, (_, name: string) => {
      const value = variables[name];
      if (value === undefined || value === null) return '';
      return typeof value === 'string' ? value : JSON.stringify(value);
    })
    .replace(/[ \t]{2,}/g, ' ')
    .trim();
}

/** The placeholder names a text uses, e.g. to tell whether a greeting differs per call. */
export function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}
