import { describe, expect, it } from 'vitest';
import { buildArguments, fillSpoken, intentByExamples, resultVariables, valueHolds } from './flow-values.ts';
import { MAX_READ_OUT_CHARS, readOutTopHit } from './search-answer.ts';

const captured = { age: 23, consent: true, plan: 'Premium', day: '2026-03-12', empty: '' };

describe('value conditions', () => {
  const holds = (field: string, op: 'equals' | 'in' | 'gt' | 'lt' | 'exists', value?: unknown, from?: 'variables') =>
    valueHolds({ kind: 'value', field, op, value: value as never, next: 'x', ...(from ? { from } : {}) }, captured, {
      tier: 'gold',
      limit: '30',
    });

  it('compares numbers, booleans, text without case, and ISO dates', () => {
    expect(holds('age', 'equals', '23')).toBe(true);
    expect(holds('consent', 'equals', 'yes')).toBe(true);
    expect(holds('consent', 'equals', false)).toBe(false);
    expect(holds('plan', 'equals', 'premium')).toBe(true);
    expect(holds('plan', 'in', ['Basic', 'PREMIUM'])).toBe(true);
    expect(holds('age', 'gt', 18)).toBe(true);
    expect(holds('age', 'lt', 18)).toBe(false);
    expect(holds('day', 'lt', '2026-04-01')).toBe(true);
    expect(holds('tier', 'equals', 'Gold', 'variables')).toBe(true);
    expect(holds('limit', 'gt', 25, 'variables')).toBe(true);
  });

  it('treats missing and empty values as not there, and never matches them', () => {
    expect(holds('age', 'exists')).toBe(true);
    expect(holds('empty', 'exists')).toBe(false);
    expect(holds('missing', 'exists')).toBe(false);
    expect(holds('missing', 'equals', 'x')).toBe(false);
    expect(holds('missing', 'gt', 0)).toBe(false);
    expect(holds('plan', 'gt', 5)).toBe(false);
  });
});

describe('values in speech and tool arguments', () => {
  it('speaks booleans as yes and no', () => {
    expect(fillSpoken('Consent: {{consent}}, age {{age}}.', captured)).toBe('Consent: yes, age 23.');
  });

  it('passes a lone placeholder with its type and fills text around placeholders', () => {
    expect(
      buildArguments({ age: '{{age}}', note: 'Plan {{plan}}', flag: true, count: 2, gone: '{{missing}}' }, captured),
    ).toEqual({ age: 23, note: 'Plan Premium', flag: true, count: 2, gone: null });
  });

  it("opens a tool's JSON answer into dotted variables, a few levels deep", () => {
    expect(resultVariables('order', '{"id": 7, "eta": {"day": "Friday"}}')).toEqual({
      order: { id: 7, eta: { day: 'Friday' } },
      'order.id': 7,
      'order.eta': { day: 'Friday' },
      'order.eta.day': 'Friday',
    });
    expect(resultVariables('note', 'plain text')).toEqual({ note: 'plain text' });
  });

  it('matches intents by their examples or their name when there is no model', () => {
    const intents = [
      { kind: 'intent' as const, intent: 'talk_to_sales', next: 'a' },
      { kind: 'intent' as const, intent: 'billing', examples: ['my bill', 'invoice'], next: 'b' },
    ];
    expect(intentByExamples('I want to talk to sales please', intents)).toBe('talk_to_sales');
    expect(intentByExamples('a question about my bill', intents)).toBe('billing');
    expect(intentByExamples('hello', intents)).toBeUndefined();
  });
});

describe('reading out a search hit', () => {
  it('finds the text in the shapes search answers come in', () => {
    expect(readOutTopHit('Open 9 to 5.')).toBe('Open 9 to 5.');
    expect(readOutTopHit('{"data":{"results":[{"content":"Refunds take 5 days."}]}}')).toBe('Refunds take 5 days.');
    expect(
      readOutTopHit({
        results: [
          {
            product_id: 'p1',
            name: 'Solar kit 3kW',
            price: 150000,
            currency: 'INR',
            in_stock: false,
            short_description: 'Panels and inverter.',
          },
        ],
      }),
    ).toBe('Solar kit 3kW, 150000 INR, currently out of stock. Panels and inverter.');
    expect(readOutTopHit({ results: [] })).toBeUndefined();
    expect(readOutTopHit(null)).toBeUndefined();
  });

  it('cuts long text at a sentence, or at a word, to fit a phone answer', () => {
    const sentences = `${'This sentence is about solar panels. '.repeat(20)}`;
    const cut = readOutTopHit(sentences)!;
    expect(cut.length).toBeLessThanOrEqual(MAX_READ_OUT_CHARS);
    expect(cut.endsWith('panels.')).toBe(true);
    const oneLong = readOutTopHit('word '.repeat(200))!;
    expect(oneLong.length).toBeLessThanOrEqual(MAX_READ_OUT_CHARS);
    expect(oneLong.endsWith('word.')).toBe(true);
  });
});
