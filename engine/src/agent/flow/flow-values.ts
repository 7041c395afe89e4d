/**
 * The values a running flow works with: what it captured, the call's variables, and what tools returned. This is
 * where they are compared (branch value conditions), put into spoken text ({{placeholders}}) and passed to tools.
 */
import type { BranchCondition } from '../../protocol/flow-definition.ts';
import { fillTemplate, type Variables } from '../../protocol/template.ts';
import { containsPhrase, normalise } from './text-match.ts';

type ValueCondition = Extract<BranchCondition, { kind: 'value' }>;
type IntentCondition = Extract<BranchCondition, { kind: 'intent' }>;

/** How deep a tool's JSON answer is opened into {{name.a.b}} variables; deeper detail is not spoken on a call. */
export const MAX_RESULT_DEPTH = 3;

const WHOLE_PLACEHOLDER = /^\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}$/;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A value as words: yes/no for booleans, so "You said {{consent}}" is not spoken as "true". */
export function spokenValue(value: unknown): unknown {
  return typeof value === 'boolean' ? (value ? 'yes' : 'no') : value;
}

/** Text with {{placeholders}} filled, captured values written as they are spoken. */
export function fillSpoken(text: string, values: Variables): string {
  const spoken: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) spoken[key] = spokenValue(value);
  return fillTemplate(text, spoken);
}

/** A tool argument: "{{name}}" alone passes the value itself (a number stays a number); other text is filled in. */
export function buildArguments(
  args: Record<string, string | number | boolean> | undefined,
  values: Variables,
): Record<string, unknown> {
  const built: Record<string, unknown> = {};
  for (const [name, arg] of Object.entries(args ?? {})) {
    if (typeof arg !== 'string') {
      built[name] = arg;
      continue;
    }
    const whole = WHOLE_PLACEHOLDER.exec(arg);
    built[name] = whole ? (values[whole[1]!] ?? null) : fillTemplate(arg, values);
  }
  return built;
}

/** A tool's answer as variables: `name` for the whole answer and `name.field` for its fields, JSON text opened. */
export function resultVariables(name: string, result: unknown): Record<string, unknown> {
  let value = result;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      // Plain text is a fine answer: it stays text.
    }
  }
  const variables: Record<string, unknown> = { [name]: value };
  const open = (prefix: string, inner: unknown, depth: number) => {
    if (!isRecord(inner) || depth > MAX_RESULT_DEPTH) return;
    for (const [key, field] of Object.entries(inner)) {
      variables[`${prefix}.${key}`] = field;
      open(`${prefix}.${key}`, field, depth + 1);
    }
  };
  open(name, value, 1);
  return variables;
}

const asNumber = (value: unknown): number | undefined => {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
};

const YES_STRINGS = new Set(['true', 'yes']);
const NO_STRINGS = new Set(['false', 'no']);

function same(actual: unknown, expected: unknown): boolean {
  if (typeof actual === 'boolean' || typeof expected === 'boolean') {
    const toBool = (v: unknown) =>
      typeof v === 'boolean'
        ? v
        : YES_STRINGS.has(normalise(String(v)))
          ? true
          : NO_STRINGS.has(normalise(String(v)))
            ? false
            : undefined;
    const [a, b] = [toBool(actual), toBool(expected)];
    return a !== undefined && a === b;
  }
  const [a, b] = [asNumber(actual), asNumber(expected)];
  if (a !== undefined && b !== undefined) return a === b;
  return actual !== undefined && actual !== null && normalise(String(actual)) === normalise(String(expected));
}

function compare(actual: unknown, expected: unknown): number | undefined {
  const [a, b] = [asNumber(actual), asNumber(expected)];
  if (a !== undefined && b !== undefined) return a - b;
  // ISO dates compare correctly as text.
  if (typeof actual === 'string' && typeof expected === 'string')
    return actual < expected ? -1 : actual > expected ? 1 : 0;
  return undefined;
}

/** Whether a value condition holds, looking the field up among captured values or variables. */
export function valueHolds(condition: ValueCondition, captured: Variables, variables: Variables): boolean {
  const actual = (condition.from === 'variables' ? variables : captured)[condition.field];
  const expected = condition.value;
  switch (condition.op) {
    case 'exists':
      return actual !== undefined && actual !== null && actual !== '';
    case 'equals':
      return same(actual, expected);
    case 'in':
      return Array.isArray(expected) && expected.some((option) => same(actual, option));
    case 'gt':
      return (compare(actual, expected) ?? 0) > 0;
    case 'lt':
      return (compare(actual, expected) ?? 0) < 0;
  }
}

/**
 * The intent a caller expressed, without a language model: the first intent one of whose examples (or its own
 * name, "talk_to_sales" read as "talk to sales") appears in the caller's words.
 */
export function intentByExamples(text: string, intents: readonly IntentCondition[]): string | undefined {
  for (const intent of intents) {
    const phrases = [...(intent.examples ?? []), intent.intent.replace(/[_-]+/g, ' ')];
    if (phrases.some((phrase) => containsPhrase(text, phrase))) return intent.intent;
  }
  return undefined;
}
