/**
 * A campaign's dataExtractionSchema: `{ fields: [{ key, label, type, choices? }] }` — the field shapes of an agent's
 * resultsConfig (number, phone, choice, yes_no, text, date), so the post-call analysis fills them the same way
 * (calls/analysis/call-analyst.ts `extract`) into the contact's `extractedData`, exported with the contacts.
 */
import { FIELD_TYPES, type ResultsConfig } from '@parley/engine/protocol';
import { type FieldProblem, validationError } from '../errors.ts';

/** Fields one campaign extracts at most: each is one more value the model must find in every call. */
export const MAX_EXTRACTION_FIELDS = 20;
const KEY = /^[a-z][a-z0-9_]{0,39}$/;

export type ExtractionFields = ResultsConfig['fields'];

/** The schema as sent, checked (400 naming each bad part); null stays null. */
export function dataExtractionSchemaOf(value: Record<string, unknown> | null): { fields: ExtractionFields } | null {
  if (value === null) return null;
  const base = 'dataExtractionSchema';
  const problems: FieldProblem[] = [];
  const extra = Object.keys(value).filter((k) => k !== 'fields');
  for (const key of extra) problems.push({ field: `${base}.${key}`, message: 'is not accepted: only fields' });
  const fields = value.fields;
  if (!Array.isArray(fields) || fields.length > MAX_EXTRACTION_FIELDS) {
    problems.push({ field: `${base}.fields`, message: `must be a list of at most ${MAX_EXTRACTION_FIELDS} fields` });
    throw validationError(problems);
  }
  const seen = new Set<string>();
  const out: ExtractionFields = [];
  fields.forEach((raw: unknown, i) => {
    const at = `${base}.fields.${i}`;
    const f = (raw ?? {}) as Record<string, unknown>;
    if (typeof f.key !== 'string' || !KEY.test(f.key))
      return problems.push({ field: `${at}.key`, message: 'must be lower-case letters, digits and _ (up to 40)' });
    if (seen.has(f.key)) return problems.push({ field: `${at}.key`, message: `repeats ${f.key}` });
    seen.add(f.key);
    if (typeof f.label !== 'string' || !f.label.trim() || f.label.length > 100)
      return problems.push({ field: `${at}.label`, message: 'must be a text of 1 to 100 characters' });
    if (!(FIELD_TYPES as readonly unknown[]).includes(f.type))
      return problems.push({ field: `${at}.type`, message: `must be one of: ${FIELD_TYPES.join(', ')}` });
    const choices = f.choices;
    if (f.type === 'choice') {
      const ok =
        Array.isArray(choices) && choices.length > 0 && choices.every((c) => typeof c === 'string' && c.trim());
      if (!ok) return problems.push({ field: `${at}.choices`, message: 'must list the choices (texts)' });
    }
    out.push({
      key: f.key,
      label: f.label.trim(),
      type: f.type as ExtractionFields[number]['type'],
      ...(f.type === 'choice' && { choices: choices as string[] }),
    });
    return undefined;
  });
  if (problems.length) throw validationError(problems);
  return { fields: out };
}
