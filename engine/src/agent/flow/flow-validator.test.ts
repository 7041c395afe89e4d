import { describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../../protocol/flow-definition.ts';
import { exampleFlows } from './examples.ts';
import { validateFlow, type FlowValidationContext } from './flow-validator.ts';

const agent: FlowValidationContext = { toolKeys: ['book_slot'], hasKnowledgeBase: false, handoverNumber: '+15550100' };

/** A small valid flow that each test breaks in one way. */
const base = (): FlowDefinition => ({
  version: 1,
  start: 'hello',
  steps: {
    hello: { kind: 'say', text: 'Hi.', next: 'ask_day' },
    ask_day: {
      kind: 'ask',
      question: 'Which day?',
      field: { key: 'day', label: 'Day', type: 'date' },
      next: 'book',
      fallback: 'bye',
    },
    book: { kind: 'tool', tool: 'book_slot', arguments: { day: '{{day}}' }, next: 'bye', onFailure: 'bye' },
    bye: { kind: 'end', outcome: { key: 'done', label: 'Done' } },
  },
});

const paths = (flow: unknown, context = agent) => validateFlow(flow, context).map((problem) => problem.path);
const messages = (flow: unknown, context = agent) =>
  validateFlow(flow, context).map((problem) => `${problem.path}: ${problem.message}`);

describe('validateFlow', () => {
  it('accepts a valid flow', () => {
    expect(validateFlow(base(), agent)).toEqual([]);
  });

  it.each(exampleFlows.map((example) => [example.title, example] as const))(
    'accepts the example "%s" for its agent',
    (_, example) => {
      expect(validateFlow(example.flow, example.agent)).toEqual([]);
    },
  );

  it('refuses something that is not a flow at all', () => {
    expect(paths(null)).toEqual(['']);
    expect(paths([1, 2])).toEqual(['']);
  });

  it('reports schema errors with the path of the field and readable enum messages', () => {
    const flow = base() as unknown as { steps: Record<string, Record<string, unknown>> };
    flow.steps.ask_day!.field = { key: 'day', label: 'Day', type: 'email' };
    flow.steps.hello!.kind = 'shout';
    const found = messages(flow);
    expect(found).toContain('/steps/ask_day/field/type: must be one of: number, phone, choice, yes_no, text, date');
    expect(found).toContain('/steps/hello/kind: must be one of: say, ask, branch, tool, knowledge, handover, end');
  });

  it('names the broken field of a branch condition instead of "expected union value"', () => {
    const flow = base();
    flow.steps.route = {
      kind: 'branch',
      conditions: [{ kind: 'dtmf', digits: 'x', next: 'bye' } as never, { kind: 'guess', next: 'bye' } as never],
      default: 'bye',
    };
    flow.steps.hello = { kind: 'say', text: 'Hi.', next: 'route' };
    flow.steps.route.default = 'ask_day';
    expect(paths(flow)).toEqual(['/steps/route/conditions/0/digits', '/steps/route/conditions/1/kind']);
  });

  it('reports references to steps that do not exist, and a missing start step', () => {
    const flow = { ...base(), start: 'nowhere' };
    flow.steps.book = { kind: 'tool', tool: 'book_slot', next: 'confirm', onFailure: 'bye' };
    expect(messages(flow)).toEqual(
      expect.arrayContaining(['/start: there is no step "nowhere"', '/steps/book/next: there is no step "confirm"']),
    );
  });

  it('reports steps that cannot be reached from the start', () => {
    const flow = base();
    flow.steps.orphan = { kind: 'say', text: 'Never said.', next: 'bye' };
    expect(messages(flow)).toEqual(['/steps/orphan: step "orphan" cannot be reached from the start step']);
  });

  it('reports steps from which no path leads to an end', () => {
    const flow = base();
    flow.steps.ask_day = {
      kind: 'ask',
      question: 'Which day?',
      field: { key: 'day', label: 'Day', type: 'date' },
      next: 'again',
      fallback: 'again',
    };
    flow.steps.again = {
      kind: 'ask',
      question: 'Really?',
      field: { key: 'sure', label: 'Sure', type: 'yes_no' },
      next: 'ask_day',
    };
    expect(messages(flow)).toEqual([
      '/steps/book: step "book" cannot be reached from the start step',
      '/steps/bye: step "bye" cannot be reached from the start step',
      '/steps/hello: from step "hello" no path leads to an end step (it stops or loops without a way out)',
      '/steps/ask_day: from step "ask_day" no path leads to an end step (it stops or loops without a way out)',
      '/steps/again: from step "again" no path leads to an end step (it stops or loops without a way out)',
    ]);
  });

  it('reports a flow without an end step once, not once per step', () => {
    const flow: FlowDefinition = {
      version: 1,
      start: 'a',
      steps: { a: { kind: 'ask', question: 'Name?', field: { key: 'name', label: 'Name', type: 'text' }, next: 'a' } },
    };
    expect(messages(flow)).toEqual(['/steps: the flow has no end step, so no call could finish with an outcome']);
  });

  it('reports loops that never wait for the caller', () => {
    const flow = base();
    flow.steps.hello = { kind: 'say', text: 'Hi.', next: 'check' };
    flow.steps.check = {
      kind: 'branch',
      conditions: [{ kind: 'value', field: 'tier', from: 'variables', op: 'equals', value: 'gold', next: 'ask_day' }],
      default: 'hello',
    };
    expect(messages(flow)).toEqual([
      expect.stringMatching(/^\/steps\/hello: steps "hello", "check" loop without asking the caller/),
    ]);
  });

  it('reports tools the agent does not have, and allows the built-in searches it has', () => {
    const flow = base();
    flow.steps.book = { kind: 'tool', tool: 'cancel_slot', next: 'bye', onFailure: 'bye' };
    expect(messages(flow)).toEqual(['/steps/book/tool: the agent has no tool "cancel_slot"; its tools are book_slot']);
    expect(messages(flow, { toolKeys: [] })).toEqual([
      '/steps/book/tool: the agent has no tool "cancel_slot"; it has no tools',
    ]);
    flow.steps.book = {
      kind: 'tool',
      tool: 'product_search',
      arguments: { query: 'solar' },
      next: 'bye',
      onFailure: 'bye',
    };
    expect(paths(flow)).toEqual(['/steps/book/tool']);
    expect(paths(flow, { ...agent, hasCatalogue: true })).toEqual([]);
  });

  it('reports a knowledge step on an agent without a knowledge base or catalogue', () => {
    const flow = base();
    flow.steps.hello = { kind: 'knowledge', prompt: 'Your question?', next: 'products' };
    flow.steps.products = { kind: 'knowledge', source: 'catalogue', next: 'ask_day' };
    expect(messages(flow)).toEqual([
      "/steps/hello: a knowledge step needs a knowledge base listed in the agent's customVariables",
      "/steps/products: a catalogue search needs a catalogue listed in the agent's customVariables",
    ]);
    expect(paths(flow, { ...agent, hasKnowledgeBase: true, hasCatalogue: true })).toEqual([]);
  });

  it('reports a handover on an agent without a handover number', () => {
    const flow = base();
    flow.steps.book = { kind: 'handover', onFailure: 'bye' };
    expect(messages(flow, { ...agent, handoverNumber: null })).toEqual([
      "/steps/book: a handover step needs a handover number in the agent's handoverData",
    ]);
    expect(paths(flow, { ...agent, handoverNumber: '  ' })).toEqual(['/steps/book']);
    expect(paths(flow)).toEqual([]);
  });

  it('reports one field captured with two types, and choice fields without choices', () => {
    const flow = base();
    flow.steps.hello = {
      kind: 'ask',
      question: 'Day number?',
      field: { key: 'day', label: 'Day', type: 'number' },
      next: 'plan',
    };
    flow.steps.plan = {
      kind: 'ask',
      question: 'Plan?',
      field: { key: 'plan', label: 'Plan', type: 'choice' },
      next: 'ask_day',
    };
    expect(messages(flow)).toEqual([
      '/steps/ask_day/field/type: field "day" is captured as number at step "hello"; a field has one type',
      '/steps/plan/field/choices: choice field "plan" needs its choices',
    ]);
  });

  it('reports duplicate choices and keys, bad patterns, conditions on unknown fields and reserved or mislabelled outcomes', () => {
    const flow = base();
    flow.steps.hello = {
      kind: 'ask',
      question: 'Plan?',
      patterns: ['plan ('],
      field: {
        key: 'plan',
        label: 'Plan',
        type: 'choice',
        choices: [{ value: 'Basic', dtmf: '1' }, { value: 'basic' }, { value: 'Pro', dtmf: '1' }],
      },
      next: 'check',
    };
    flow.steps.check = {
      kind: 'branch',
      conditions: [
        { kind: 'value', field: 'plann', op: 'gt', value: true, next: 'ask_day' },
        { kind: 'value', field: 'plan', op: 'in', value: 'Basic', next: 'ask_day' },
      ],
      default: 'ask_day',
    };
    flow.steps.bye = { kind: 'end', outcome: { key: 'no_result', label: 'Nothing' } };
    flow.steps.book = { kind: 'tool', tool: 'book_slot', next: 'done', onFailure: 'bye' };
    flow.steps.done = { kind: 'end', outcome: { key: 'no_result', label: 'Other label' } };
    expect(paths(flow)).toEqual([
      '/steps/hello/field/choices/1/value',
      '/steps/hello/field/choices/2/dtmf',
      '/steps/hello/patterns/0',
      '/steps/check/conditions/0/field',
      '/steps/check/conditions/0/value',
      '/steps/check/conditions/1/value',
      '/steps/bye/outcome/key',
      '/steps/done/outcome/key',
      '/steps/done/outcome/label',
    ]);
  });

  it('reports every problem of a badly broken flow in one answer', () => {
    const flow = {
      version: 2,
      start: 'hello',
      steps: {
        hello: { kind: 'say', text: 'Hi.', next: 'menu' },
        menu: {
          kind: 'branch',
          prompt: 'Press 1.',
          conditions: [{ kind: 'dtmf', digits: '1', next: 'lookup' }],
          default: 'ghost',
        },
        lookup: { kind: 'tool', tool: 'crm_lookup', next: 'human', onFailure: 'human' },
        human: { kind: 'handover', onFailure: 'menu' },
        faq: { kind: 'knowledge', next: 'menu' },
        plan: { kind: 'ask', question: 'Plan?', field: { key: 'plan', label: 'Plan', type: 'choice' }, next: 'menu' },
      },
    };
    const found = paths(flow, { toolKeys: [], handoverNumber: '' });
    expect(found).toEqual(
      expect.arrayContaining([
        '/version', // schema
        '/steps/menu/default', // unknown step
        '/steps/faq', // unreachable (and no knowledge base)
        '/steps/plan', // unreachable
        '/steps', // no end step
        '/steps/lookup/tool', // tool not on the agent
        '/steps/human', // no handover number
        '/steps/plan/field/choices', // choice without choices
      ]),
    );
    expect(found.filter((path) => path === '/steps/faq')).toHaveLength(2);
  });
});
