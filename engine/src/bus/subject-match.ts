/**
 * NATS subject rules, shared by both buses so the in-process bus refuses and matches exactly what a NATS server
 * would. Subjects are dot-separated tokens; in subscriptions `*` stands for one token and `>` for one or more
 * trailing tokens. Wildcards must be whole tokens: we refuse `a*` or `a>` (NATS treats them as literals, which is
 * never what a caller meant).
 */
import { BusError } from './errors.ts';

const TOKEN_SEPARATOR = '.';
const ONE_TOKEN = '*';
const TRAILING_TOKENS = '>';
const WHITESPACE = /\s/;

/** Why `subject` cannot be published to, or undefined when it can (no wildcards, no empty tokens, no whitespace). */
export function publishSubjectProblem(subject: string): string | undefined {
  const problem = commonProblem(subject);
  if (problem !== undefined) return problem;
  if (subject.includes(ONE_TOKEN) || subject.includes(TRAILING_TOKENS)) return 'must not contain wildcards';
  return undefined;
}

/** Why `subject` cannot be subscribed to, or undefined when it can. */
export function subscribeSubjectProblem(subject: string): string | undefined {
  const problem = commonProblem(subject);
  if (problem !== undefined) return problem;
  const tokens = subject.split(TOKEN_SEPARATOR);
  for (const [index, token] of tokens.entries()) {
    if (token === TRAILING_TOKENS && index !== tokens.length - 1) return "'>' must be the last token";
    if (token.length > 1 && (token.includes(ONE_TOKEN) || token.includes(TRAILING_TOKENS))) {
      return 'wildcards must be whole tokens';
    }
  }
  return undefined;
}

/** Throws a `bad_subject` BusError unless `subject` is a valid subject to publish (or request) on. */
export function assertPublishSubject(subject: string): void {
  const problem = publishSubjectProblem(subject);
  if (problem !== undefined) throw badSubject(subject, problem);
}

/** Throws a `bad_subject` BusError unless `subject` is a valid subscription subject (wildcards allowed). */
export function assertSubscribeSubject(subject: string): void {
  const problem = subscribeSubjectProblem(subject);
  if (problem !== undefined) throw badSubject(subject, problem);
}

/** Throws a `bad_subject` BusError unless `queue` is a usable queue group name (non-empty, no whitespace). */
export function assertQueueName(queue: string): void {
  if (queue.length === 0 || WHITESPACE.test(queue)) {
    const name = JSON.stringify(queue);
    throw new BusError('bad_subject', `Invalid queue group name ${name}: must be non-empty without whitespace`);
  }
}

/** True when the subscription `pattern` (which may hold wildcards) matches the literal `subject`. */
export function subjectMatches(pattern: string, subject: string): boolean {
  return tokensMatch(splitSubject(pattern), splitSubject(subject));
}

/** Splits a subject into its tokens; callers matching often split once and reuse the tokens. */
export function splitSubject(subject: string): string[] {
  return subject.split(TOKEN_SEPARATOR);
}

/** True when `subject` has a wildcard token, i.e. cannot be matched by plain string equality. */
export function hasWildcard(subject: string): boolean {
  return splitSubject(subject).some((token) => token === ONE_TOKEN || token === TRAILING_TOKENS);
}

/** Token-level match of an already split pattern against an already split literal subject. */
export function tokensMatch(pattern: readonly string[], subject: readonly string[]): boolean {
  for (const [index, token] of pattern.entries()) {
    // `>` needs at least one token left to stand for.
    if (token === TRAILING_TOKENS) return subject.length > index;
    if (index >= subject.length) return false;
    if (token !== ONE_TOKEN && token !== subject[index]) return false;
  }
  return pattern.length === subject.length;
}

/**
 * True when every subject the (possibly wildcard) `pattern` matches is also matched by `outer`: a consumer's filter
 * must stay within its stream's subjects. `a.*.c` is within `a.>` and `a.*.c`, not within `a.b.c`.
 */
export function subjectWithin(pattern: string, outer: string): boolean {
  const inner = splitSubject(pattern);
  const cover = splitSubject(outer);
  for (const [index, token] of cover.entries()) {
    if (token === TRAILING_TOKENS) return inner.length > index;
    const own = inner[index];
    if (own === undefined || own === TRAILING_TOKENS) return false;
    if (token !== ONE_TOKEN && token !== own) return false;
  }
  return inner.length === cover.length;
}

function commonProblem(subject: string): string | undefined {
  if (subject.length === 0) return 'must not be empty';
  if (WHITESPACE.test(subject)) return 'must not contain whitespace';
  if (splitSubject(subject).some((token) => token.length === 0)) return 'must not have empty tokens';
  return undefined;
}

function badSubject(subject: string, problem: string): BusError {
  return new BusError('bad_subject', `Invalid subject ${JSON.stringify(subject)}: ${problem}`);
}
