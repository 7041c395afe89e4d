/**
 * Ids that go into subjects (call ids, stream ids, worker ids) must each be exactly one NATS token: a dot would
 * silently address another subject and a wildcard would subscribe to other calls' traffic.
 */

/** Longest id accepted in a subject, in characters: ids are UUIDs or nuids (≤ 36), so anything far longer is a bug. */
export const MAX_SUBJECT_TOKEN_LENGTH = 128;

/** How much of an over-long id an error message repeats, in characters: enough to recognise it, not to flood logs. */
const SHOWN_PREFIX_LENGTH = 40;

// Dots split tokens, `*` and `>` are wildcards, whitespace and control characters break the NATS protocol line.
const FORBIDDEN_CHARACTERS = /[.*>\s]/;
const FIRST_PRINTABLE_CODE = 0x20;
const DELETE_CODE = 0x7f;

/** Thrown when an id cannot be used as one subject token. `field` names the parameter, for example `callId`. */
export class InvalidSubjectTokenError extends Error {
  override name = 'InvalidSubjectTokenError';
  readonly code = 'invalid_subject_token';
  readonly retryable = false;
  readonly field: string;

  constructor(field: string, value: string, problem: string) {
    super(`${field} ${JSON.stringify(value)} cannot be used in a subject: ${problem}`);
    this.field = field;
  }
}

/** Returns `value` when it is a single subject token, else throws InvalidSubjectTokenError naming `field`. */
export function subjectToken(field: string, value: string): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new InvalidSubjectTokenError(field, String(value), 'it must be a non-empty string');
  }
  if (value.length > MAX_SUBJECT_TOKEN_LENGTH) {
    const shown = value.slice(0, SHOWN_PREFIX_LENGTH);
    throw new InvalidSubjectTokenError(field, shown, `it is longer than ${MAX_SUBJECT_TOKEN_LENGTH} characters`);
  }
  if (FORBIDDEN_CHARACTERS.test(value) || hasControlCharacter(value)) {
    const problem = 'it must not contain dots, wildcards (* >), whitespace or control characters';
    throw new InvalidSubjectTokenError(field, value, problem);
  }
  return value;
}

function hasControlCharacter(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < FIRST_PRINTABLE_CODE || code === DELETE_CODE) return true;
  }
  return false;
}
