import { TypeCompiler } from '@sinclair/typebox/compiler';
import { describe, expect, it } from 'vitest';
import { FlowDefinition, FlowStep, MAX_FLOW_STEPS, ResultsConfig } from './flow-definition.ts';

const check = TypeCompiler.Compile(FlowDefinition);
const firstError = (value: unknown) => check.Errors(value).First()?.path;

/** One step of each kind, so a change to any kind's schema shows here. */
const everyKind = {
  version: 1,
  start: 'hello',
  maxStepVisits: 5,
  steps: {
    hello: { kind: 'say', title: 'Greeting', text: 'Hi {{name}}.', next: 'plan' },
    plan: {
      kind: 'ask',
      question: 'Which plan: basic or premium?',
      field: {
        key: 'plan',
        label: 'Plan',
        type: 'choice',
        choices: [{ value: 'Basic' }, { value: 'Premium', keywords: ['the expensive one'], dtmf: '2' }],
      },
      capture: ['dtmf', 'pattern', 'llm'],
      patterns: ['plan (\\w+)'],
      maxDigits: 1,
      retries: 1,
      reprompt: 'Basic or premium?',
      next: 'route',
      fallback: 'person',
    },
    route: {
      kind: 'branch',
      prompt: 'Anything else?',
      conditions: [
        { kind: 'value', field: 'plan', op: 'in', value: ['Premium'], next: 'price' },
        { kind: 'intent', intent: 'question', description: 'asks something', examples: ['how much'], next: 'faq' },
        { kind: 'dtmf', digits: '0', next: 'person' },
        { kind: 'keywords', keywords: ['bye'], next: 'done' },
      ],
      retries: 0,
      default: 'done',
    },
    price: {
      kind: 'tool',
      tool: 'quote',
      arguments: { plan: '{{plan}}', seats: 3, annual: true },
      say: 'One moment.',
      saveAs: 'quote',
      next: 'done',
      onFailure: 'person',
    },
    faq: {
      kind: 'knowledge',
      source: 'knowledge',
      prompt: 'What would you like to know?',
      notFound: 'Sorry.',
      next: 'done',
    },
    person: {
      kind: 'handover',
      text: 'Connecting you.',
      outcome: { key: 'transferred', label: 'Transferred' },
      onFailure: 'done',
    },
    done: { kind: 'end', outcome: { key: 'done', label: 'Done', description: 'Finished.' }, text: 'Goodbye.' },
  },
};

describe('flowDefinition schema', () => {
  it('accepts a flow with a step of every kind and each optional field', () => {
    expect(firstError(everyKind)).toBeUndefined();
  });

  it('accepts the smallest flow: one end step', () => {
    expect(
      check.Check({ version: 1, start: 'end', steps: { end: { kind: 'end', outcome: { key: 'ok', label: 'OK' } } } }),
    ).toBe(true);
  });

  it.each([
    ['a version other than 1', { ...everyKind, version: 2 }, '/version'],
    ['no start', { ...everyKind, start: undefined }, '/start'],
    ['no steps', { ...everyKind, steps: {} }, '/steps'],
    ['an unknown top-level field', { ...everyKind, extra: true }, '/extra'],
    ['a loop guard out of range', { ...everyKind, maxStepVisits: 0 }, '/maxStepVisits'],
    [
      'an unknown step kind',
      { ...everyKind, steps: { ...everyKind.steps, hello: { kind: 'wait', next: 'plan' } } },
      '/steps/hello',
    ],
    [
      'a say step without next',
      { ...everyKind, steps: { ...everyKind.steps, hello: { kind: 'say', text: 'Hi' } } },
      '/steps/hello',
    ],
    [
      'a bad field type',
      {
        ...everyKind,
        steps: {
          ...everyKind.steps,
          plan: { ...everyKind.steps.plan, field: { key: 'plan', label: 'Plan', type: 'email' } },
        },
      },
      '/steps/plan',
    ],
    [
      'a field key with spaces',
      {
        ...everyKind,
        steps: {
          ...everyKind.steps,
          plan: { ...everyKind.steps.plan, field: { key: 'my plan', label: 'Plan', type: 'text' } },
        },
      },
      '/steps/plan',
    ],
    [
      'too many retries',
      { ...everyKind, steps: { ...everyKind.steps, plan: { ...everyKind.steps.plan, retries: 6 } } },
      '/steps/plan',
    ],
    [
      'a step key with spaces',
      { ...everyKind, steps: { ...everyKind.steps, 'say hi': { kind: 'say', text: 'Hi', next: 'done' } } },
      '/steps/say hi',
    ],
    [
      'an empty spoken text',
      { ...everyKind, steps: { ...everyKind.steps, hello: { kind: 'say', text: '', next: 'plan' } } },
      '/steps/hello',
    ],
  ])('rejects %s', (_, flow, path) => {
    expect(check.Check(flow)).toBe(false);
    expect(firstError(flow)).toContain(path);
  });

  it('caps the number of steps', () => {
    const steps = Object.fromEntries(
      Array.from({ length: MAX_FLOW_STEPS + 1 }, (_, i) => [
        `s${i}`,
        { kind: 'end', outcome: { key: 'ok', label: 'OK' } },
      ]),
    );
    expect(check.Check({ version: 1, start: 's0', steps })).toBe(false);
  });

  it('documents every step kind for the OpenAPI document', () => {
    for (const kind of FlowStep.anyOf) expect(kind.properties.kind.description).toBeTruthy();
  });

  it('describes a resultsConfig of outcomes and typed fields', () => {
    const results = TypeCompiler.Compile(ResultsConfig);
    expect(
      results.Check({
        outcomes: [{ key: 'ok', label: 'OK' }],
        fields: [{ key: 'plan', label: 'Plan', type: 'choice', choices: ['A'] }],
      }),
    ).toBe(true);
    expect(results.Check({ outcomes: [], fields: [{ key: 'x', label: 'X', type: 'email' }] })).toBe(false);
  });
});
