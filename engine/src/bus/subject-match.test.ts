import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BusError } from './errors.ts';
import {
  assertPublishSubject,
  assertQueueName,
  assertSubscribeSubject,
  hasWildcard,
  publishSubjectProblem,
  subjectMatches,
  subjectWithin,
  subscribeSubjectProblem,
} from './subject-match.ts';

const token = fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/);
const tokens = fc.array(token, { minLength: 1, maxLength: 6 });

describe('subjectMatches', () => {
  it.each([
    ['a.b.c', 'a.b.c', true],
    ['a.b.c', 'a.b', false],
    ['a.b', 'a.b.c', false],
    ['a.*.c', 'a.b.c', true],
    ['a.*.c', 'a.b.d', false],
    ['a.*', 'a.b.c', false],
    ['*', 'a', true],
    ['*', 'a.b', false],
    ['a.>', 'a.b', true],
    ['a.>', 'a.b.c.d', true],
    ['a.>', 'a', false],
    ['>', 'a', true],
    ['>', 'a.b.c', true],
    ['*.b.>', 'a.b.c', true],
    ['*.b.>', 'a.b', false],
    ['v1.stt.*.in', 'v1.stt.s1.in', true],
    ['v1.stt.*.in', 'v1.stt.s1.out', false],
  ])('%s against %s is %s', (pattern, subject, expected) => {
    expect(subjectMatches(pattern, subject)).toBe(expected);
  });

  it('matches every literal subject against itself', () => {
    fc.assert(fc.property(tokens, (t) => subjectMatches(t.join('.'), t.join('.'))));
  });

  it('still matches when any token is replaced by *', () => {
    fc.assert(
      fc.property(tokens, fc.nat(), (t, at) => {
        const pattern = [...t];
        pattern[at % t.length] = '*';
        return subjectMatches(pattern.join('.'), t.join('.'));
      }),
    );
  });

  it('matches prefix.> against every longer subject with that prefix, never the prefix itself', () => {
    fc.assert(
      fc.property(tokens, tokens, (prefix, rest) => {
        const pattern = `${prefix.join('.')}.>`;
        return subjectMatches(pattern, [...prefix, ...rest].join('.')) && !subjectMatches(pattern, prefix.join('.'));
      }),
    );
  });

  it('never matches a wildcard-free pattern against a subject of another length', () => {
    fc.assert(
      fc.property(tokens, tokens, (a, b) => {
        fc.pre(a.length !== b.length);
        return !subjectMatches(a.join('.'), b.join('.'));
      }),
    );
  });

  it('agrees with a regular-expression model of NATS matching', () => {
    const patternToken = fc.oneof(token, fc.constant('*'));
    const pattern = fc
      .tuple(fc.array(patternToken, { minLength: 1, maxLength: 4 }), fc.boolean())
      .map(([t, trailing]) => (trailing ? [...t, '>'] : t).join('.'));
    const subject = fc.array(fc.constantFrom('a', 'b', 'c'), { minLength: 1, maxLength: 6 }).map((t) => t.join('.'));
    fc.assert(
      fc.property(pattern, subject, (p, s) => {
        const source = p
          .split('.')
          .map((t) => (t === '*' ? '[^.]+' : t === '>' ? '.+' : t))
          .join('\\.');
        return subjectMatches(p, s) === new RegExp(`^${source}$`).test(s);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('publish subject validation', () => {
  it('accepts dotted tokens', () => {
    fc.assert(fc.property(tokens, (t) => publishSubjectProblem(t.join('.')) === undefined));
  });

  it.each(['', 'a..b', '.a', 'a.', 'a b', 'a\tb', 'a\nb', 'a.*', 'a.>', '*', '>', 'a*'])('refuses %j', (subject) => {
    expect(publishSubjectProblem(subject)).toBeDefined();
    expect(() => assertPublishSubject(subject)).toThrow(BusError);
  });

  it('throws a BusError coded bad_subject', () => {
    try {
      assertPublishSubject('a..b');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(BusError);
      expect((err as BusError).code).toBe('bad_subject');
      expect((err as BusError).retryable).toBe(false);
    }
  });

  it('refuses any subject with whitespace inserted', () => {
    fc.assert(
      fc.property(tokens, fc.constantFrom(' ', '\t', '\r', '\n'), fc.nat(), (t, ws, at) => {
        const subject = t.join('.');
        const cut = at % (subject.length + 1);
        return publishSubjectProblem(subject.slice(0, cut) + ws + subject.slice(cut)) !== undefined;
      }),
    );
  });
});

describe('subscribe subject validation', () => {
  it.each(['a', 'a.b', 'a.*', '*.b', 'a.>', '>', '*.*.>'])('accepts %j', (subject) => {
    expect(subscribeSubjectProblem(subject)).toBeUndefined();
    expect(() => assertSubscribeSubject(subject)).not.toThrow();
  });

  it.each(['', 'a..b', 'a.>.b', '>.a', 'a*', 'a.b>', 'a b'])('refuses %j', (subject) => {
    expect(subscribeSubjectProblem(subject)).toBeDefined();
  });

  it('knows which subjects have wildcards', () => {
    expect(hasWildcard('a.*.c')).toBe(true);
    expect(hasWildcard('a.>')).toBe(true);
    expect(hasWildcard('a.b.c')).toBe(false);
  });
});

describe('queue group names', () => {
  it('accepts names and refuses empty or spaced ones', () => {
    expect(() => assertQueueName('engine')).not.toThrow();
    expect(() => assertQueueName('')).toThrow(BusError);
    expect(() => assertQueueName('a b')).toThrow(BusError);
  });
});

describe('subjectWithin (a consumer filter inside its stream subjects)', () => {
  it.each([
    ['v1.call.*.event', 'v1.call.*.event', true],
    ['v1.call.abc.event', 'v1.call.*.event', true],
    ['v1.call.*.event', 'v1.>', true],
    ['v1.call.>', 'v1.call.>', true],
    ['v1.call.>', 'v1.call.*', false],
    ['v1.call.*.event', 'v1.call.abc.event', false],
    ['v1.call.*.event', 'v1.call.*', false],
    ['v1.call', 'v1.call.>', false],
    ['a.>', '>', true],
  ])('%s within %s: %s', (pattern, outer, within) => {
    expect(subjectWithin(pattern, outer)).toBe(within);
  });

  it('agrees with subjectMatches for literal subjects', () => {
    fc.assert(
      fc.property(tokens, tokens, (subject, pattern) => {
        const outer = pattern.map((t, i) => (i % 2 === 0 ? t : '*')).join('.');
        expect(subjectWithin(subject.join('.'), outer)).toBe(subjectMatches(outer, subject.join('.')));
      }),
    );
  });
});
