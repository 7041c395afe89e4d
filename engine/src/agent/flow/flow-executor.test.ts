import { describe, expect, it } from 'vitest';
import type { CapturedField, FlowDefinition } from '../../protocol/flow-definition.ts';
import { appointmentConfirmation, leadQualification, supportLineIvr, type ExampleFlow } from './examples.ts';
import {
  DEFAULT_MAX_STEP_VISITS,
  DEFAULT_NOT_FOUND_TEXT,
  FlowExecutor,
  FlowStateError,
  type FlowActions,
  type FlowIntent,
  type FlowLanguageModel,
} from './flow-executor.ts';
import { validateFlow } from './flow-validator.ts';

const TODAY = '2026-03-10'; // a Tuesday

const run = (example: ExampleFlow, llm?: FlowLanguageModel, flow = example.flow) =>
  new FlowExecutor(flow, { variables: example.variables, today: TODAY, ...(llm ? { llm } : {}) });

/** Every answer tells the session exactly one thing to do next. */
function what(actions: FlowActions): string {
  const next = (['listen', 'toolCall', 'handover', 'end'] as const).filter((key) => actions[key] !== undefined);
  expect(next).toHaveLength(1);
  return next[0]!;
}

/** A language model that answers from a script and records what it was asked. */
class ScriptedModel implements FlowLanguageModel {
  readonly calls: string[] = [];
  constructor(
    private readonly script: {
      intents?: Record<string, string>;
      fields?: Record<string, unknown>;
      answers?: Record<string, string>;
      fail?: boolean;
      hang?: boolean;
    },
  ) {}

  async classifyIntent(text: string, intents: readonly FlowIntent[]): Promise<string | undefined> {
    this.calls.push(`intent:${text}:${intents.map((i) => i.intent).join(',')}`);
    return this.#reply(this.script.intents?.[text]);
  }

  async extractField(text: string, field: CapturedField): Promise<unknown> {
    this.calls.push(`extract:${field.key}:${text}`);
    return this.#reply(this.script.fields?.[text]);
  }

  async answer(question: string): Promise<string | undefined> {
    this.calls.push(`answer:${question}`);
    return this.#reply(this.script.answers?.[question]);
  }

  #reply<T>(value: T): Promise<T> {
    if (this.script.hang) return new Promise(() => {});
    if (this.script.fail) return Promise.reject(new Error('model unavailable'));
    return Promise.resolve(value);
  }
}

describe('FlowExecutor without a language model', () => {
  it('runs a keypad menu, a webhook lookup and a yes/no to its end', async () => {
    const flow = run(supportLineIvr);
    const menu = await flow.start();
    expect(menu.say).toEqual([
      'Welcome to Swift Broadband support. For billing, press 1 or say billing. For a technical problem, press 2 or say technical. To hear this again, press 9.',
    ]);
    expect(menu.listen).toEqual({ stepKey: 'menu', maxDigits: 1 });

    const account = await flow.onCallerTurn({ dtmf: '1' });
    expect(account).toEqual({
      say: ['Please enter or say your account number.'],
      listen: { stepKey: 'account', maxDigits: 10 },
    });

    const lookup = await flow.onCallerTurn({ dtmf: '4711#' });
    expect(what(lookup)).toBe('toolCall');
    expect(lookup).toEqual({
      say: ['Let me look that up.'],
      toolCall: { stepKey: 'lookup', tool: 'get_balance', arguments: { account: 4711 } },
    });
    expect(flow.status).toBe('tool');

    const balance = await flow.onToolResult(true, '{"balance": 1250, "due_date": "5 April"}');
    expect(balance.say).toEqual([
      'Your balance is 1250 rupees, due on 5 April.',
      'Would you like a payment link by text message? Press 1 for yes or 2 for no.',
    ]);
    const end = await flow.onCallerTurn({ dtmf: '2' });
    expect(end).toEqual({
      say: [],
      end: {
        outcomeKey: 'billing_info',
        outcomeLabel: 'Billing information given',
        closing: 'Thanks for calling Swift Broadband. Goodbye.',
        handedOver: false,
      },
    });
    expect(flow.result()).toEqual({
      outcomeKey: 'billing_info',
      outcomeLabel: 'Billing information given',
      captured: { account_number: 4711, wants_payment_link: false },
      flowPath: ['menu', 'account', 'lookup', 'balance', 'payment_link', 'billing_done'],
      ended: true,
      resultSource: 'flow',
    });
  });

  it("routes by keywords in the caller's words and captures a spoken yes", async () => {
    const flow = run(supportLineIvr);
    await flow.start();
    expect((await flow.onCallerTurn({ text: 'Hi, my internet is not working since morning.' })).listen?.stepKey).toBe(
      'outage',
    );
    const end = await flow.onCallerTurn({ text: "Yeah, it's completely down." });
    expect(end.end?.outcomeKey).toBe('outage_reported');
    expect(flow.result().captured).toEqual({ outage: true });
  });

  it('re-prompts a branch that heard nothing it knows, then takes the default', async () => {
    const flow = run(supportLineIvr);
    await flow.start();
    const again = await flow.onCallerTurn({ text: 'umm what' });
    expect(again).toEqual({
      say: ['Sorry, I did not get that. Press 1 for billing or 2 for technical support.'],
      listen: { stepKey: 'menu', maxDigits: 1 },
    });
    const handover = await flow.onCallerTurn({});
    expect(handover).toEqual({ say: ['Connecting you to an agent.'], handover: { stepKey: 'agent' } });
  });

  it('captures every field type from plain transcripts', async () => {
    const ask = (key: string, type: CapturedField['type'], next: string, extra: Partial<CapturedField> = {}) =>
      ({ kind: 'ask', question: `${key}?`, field: { key, label: key, type, ...extra }, next, retries: 0 }) as const;
    const flow: FlowDefinition = {
      version: 1,
      start: 'age',
      steps: {
        age: ask('age', 'number', 'phone'),
        phone: ask('phone', 'phone', 'consent'),
        consent: ask('consent', 'yes_no', 'day'),
        day: ask('day', 'date', 'plan'),
        plan: ask('plan', 'choice', 'note', {
          choices: [{ value: 'Basic' }, { value: 'Premium', keywords: ['the best one'] }],
        }),
        note: ask('note', 'text', 'done'),
        done: { kind: 'end', outcome: { key: 'done', label: 'Done' }, text: 'Thanks, {{consent}} noted for {{day}}.' },
      },
    };
    expect(validateFlow(flow, { toolKeys: [] })).toEqual([]);
    const executor = new FlowExecutor(flow, { today: TODAY });
    await executor.start();
    for (const text of [
      'I am twenty three',
      'nine eight seven six five, four three two one zero',
      'yeah sure',
      'day after tomorrow',
      'I want the best one',
    ]) {
      expect(what(await executor.onCallerTurn({ text }))).toBe('listen');
    }
    const end = await executor.onCallerTurn({ text: ' Please call after six. ' });
    expect(end.end?.closing).toBe('Thanks, yes noted for 2026-03-12.');
    expect(executor.result().captured).toEqual({
      age: 23,
      phone: '9876543210',
      consent: true,
      day: '2026-03-12',
      plan: 'Premium',
      note: 'Please call after six.',
    });
  });

  it('asks again with the re-prompt while retries last, then takes the fallback without the value', async () => {
    const flow = run(appointmentConfirmation);
    const start = await flow.start();
    expect(start.say).toEqual([
      'Hello Asha, this is Sunrise Dental calling about your appointment on Monday the 14th at 10:30.',
      'Can you make it? Say yes or press 1, or say no or press 2.',
    ]);
    const reprompt = 'Sorry, I did not catch that. Please say yes or no, or press 1 for yes and 2 for no.';
    expect(await flow.onCallerTurn({ text: 'hmm' })).toEqual({
      say: [reprompt],
      listen: { stepKey: 'confirm', maxDigits: 1 },
    });
    expect(await flow.onCallerTurn({ dtmf: '7' })).toEqual({
      say: [reprompt],
      listen: { stepKey: 'confirm', maxDigits: 1 },
    });
    const end = await flow.onCallerTurn({ text: 'who is this?' });
    expect(end.end).toEqual({
      outcomeKey: 'no_response',
      outcomeLabel: 'No clear answer',
      closing: 'I will let the clinic know. Goodbye.',
      handedOver: false,
    });
    expect(flow.result()).toMatchObject({ captured: {}, flowPath: ['greet', 'confirm', 'no_answer'] });
  });

  it("follows a tool's success path with its answer in the closing words", async () => {
    const flow = run(appointmentConfirmation);
    await flow.start();
    expect((await flow.onCallerTurn({ text: "No, I can't make it" })).listen?.stepKey).toBe('new_date');
    const tool = await flow.onCallerTurn({ text: 'Next Friday would be better' });
    expect(tool).toEqual({
      say: ['One moment while I check that day.'],
      toolCall: {
        stepKey: 'reschedule',
        tool: 'reschedule_appointment',
        arguments: { appointment_id: 'apt_123', date: '2026-03-13' },
      },
    });
    const end = await flow.onToolResult(true, { slot: 'Friday at 4 pm' });
    expect(end.end).toMatchObject({
      outcomeKey: 'rescheduled',
      closing: 'You are booked for Friday at 4 pm. Thank you, goodbye.',
    });
    expect(flow.result().captured).toEqual({ confirmed: false, preferred_date: '2026-03-13' });
  });

  it("follows a tool's failure path to a handover, and ends handed over when the transfer connects", async () => {
    const flow = run(appointmentConfirmation);
    await flow.start();
    await flow.onCallerTurn({ dtmf: '2' });
    await flow.onCallerTurn({ text: 'the 20th' });
    const handover = await flow.onToolResult(false, 'HTTP 500');
    expect(handover).toEqual({ say: ['Let me connect you with our front desk.'], handover: { stepKey: 'front_desk' } });
    const end = await flow.onHandoverResult(true);
    expect(end).toEqual({
      say: [],
      end: { outcomeKey: 'handed_over', outcomeLabel: 'Handed over to a person', handedOver: true },
    });
    expect(flow.result().flowPath).toEqual([
      'greet',
      'confirm',
      'is_confirmed',
      'new_date',
      'reschedule',
      'front_desk',
    ]);
  });

  it('goes on after a failed transfer', async () => {
    const flow = run(appointmentConfirmation);
    await flow.start();
    await flow.onCallerTurn({ dtmf: '2' });
    for (const text of ['not sure', 'no idea', 'whenever']) await flow.onCallerTurn({ text });
    expect(flow.status).toBe('handover');
    const end = await flow.onHandoverResult(false);
    expect(end.end).toEqual({
      outcomeKey: 'callback_requested',
      outcomeLabel: 'Callback requested',
      closing: 'Our team will call you back today to find a new time. Goodbye.',
      handedOver: false,
    });
  });

  it('ends with no_result when one step is entered too often', async () => {
    const flow = run(supportLineIvr, undefined, { ...supportLineIvr.flow, maxStepVisits: 3 });
    await flow.start();
    expect(what(await flow.onCallerTurn({ dtmf: '9' }))).toBe('listen');
    expect(what(await flow.onCallerTurn({ dtmf: '9' }))).toBe('listen');
    const end = await flow.onCallerTurn({ dtmf: '9' });
    expect(end.end).toEqual({ outcomeKey: 'no_result', outcomeLabel: 'No result', handedOver: false });
    expect(flow.result()).toMatchObject({ outcomeKey: 'no_result', flowPath: ['menu', 'menu', 'menu'], ended: true });
  });

  it('stops a loop that never waits for the caller, even in a flow that skipped validation', async () => {
    const flow: FlowDefinition = {
      version: 1,
      start: 'a',
      steps: {
        a: { kind: 'say', text: 'A', next: 'b' },
        b: { kind: 'say', text: 'B', next: 'a' },
        end: { kind: 'end', outcome: { key: 'x', label: 'X' } },
      },
    };
    const actions = await new FlowExecutor(flow).start();
    expect(actions.say).toHaveLength(DEFAULT_MAX_STEP_VISITS * 2);
    expect(actions.end?.outcomeKey).toBe('no_result');
  });

  it('reads out the top search hit for a question, and apologises when the search fails', async () => {
    const flow = run(leadQualification);
    await flow.start();
    await flow.onCallerTurn({ text: 'yes' });
    await flow.onCallerTurn({ text: 'about five thousand' });
    await flow.onCallerTurn({ text: 'as soon as possible' });
    const search = await flow.onCallerTurn({ text: 'Is there a subsidy?' });
    expect(search.toolCall).toEqual({
      stepKey: 'answer',
      tool: 'knowledge_search',
      arguments: { query: 'Is there a subsidy?' },
    });
    const answered = await flow.onToolResult(true, {
      results: [{ text: 'Homes get a central subsidy of up to 78,000 rupees. Apply online.', score: 0.9 }],
    });
    expect(answered.say).toEqual([
      'Homes get a central subsidy of up to 78,000 rupees. Apply online.',
      'Anything else you would like to know?',
    ]);
    await flow.onCallerTurn({ text: 'what is the warranty' });
    const sorry = await flow.onToolResult(false);
    expect(sorry.say[0]).toBe(DEFAULT_NOT_FOUND_TEXT);
    expect((await flow.onCallerTurn({ text: "no that's all" })).listen?.stepKey).toBe('callback_number');
    const end = await flow.onCallerTurn({ text: 'plus nine one nine eight seven six five four three two one zero' });
    expect(end.end).toMatchObject({
      outcomeKey: 'qualified',
      closing: 'Thank you Ravi. A consultant will call you on +919876543210 within a day.',
    });
    expect(flow.result().captured).toEqual({
      interested: true,
      monthly_bill: 5000,
      timeline: 'This month',
      callback_number: '+919876543210',
    });
  });

  it('refuses calls out of turn, and ignores caller turns while a tool runs', async () => {
    const flow = run(supportLineIvr);
    await expect(flow.onToolResult(true)).rejects.toBeInstanceOf(FlowStateError);
    await flow.start();
    await expect(flow.start()).rejects.toThrow(/not waiting for start/);
    await expect(flow.onHandoverResult(true)).rejects.toBeInstanceOf(FlowStateError);
    await flow.onCallerTurn({ dtmf: '1' });
    await flow.onCallerTurn({ dtmf: '42' });
    expect(await flow.onCallerTurn({ text: 'hello?' })).toEqual({ say: [] });
    expect(flow.result()).toMatchObject({ outcomeKey: 'no_result', ended: false });
  });
});

describe('FlowExecutor with a language model', () => {
  const reachQuestions = async (flow: FlowExecutor) => {
    await flow.start();
    await flow.onCallerTurn({ text: 'yes' });
    await flow.onCallerTurn({ text: '5000' });
    return flow.onCallerTurn({ text: 'this month' });
  };

  it('branches on the intent the model classifies, and answers from the search results through the model', async () => {
    const model = new ScriptedModel({
      intents: { 'Will the government pay part of it?': 'question' },
      answers: { 'Will the government pay part of it?': 'Yes, there is a subsidy of up to 78,000 rupees.' },
    });
    const flow = run(leadQualification, model);
    expect((await reachQuestions(flow)).say).toEqual([
      'You sound like a great fit. Do you have any questions before I book a site visit?',
    ]);
    const search = await flow.onCallerTurn({ text: 'Will the government pay part of it?' });
    expect(search.toolCall?.tool).toBe('knowledge_search');
    const answered = await flow.onToolResult(true, [{ text: 'PM Surya Ghar: up to 78,000 INR.' }]);
    expect(answered.say[0]).toBe('Yes, there is a subsidy of up to 78,000 rupees.');
    expect(model.calls).toEqual([
      'intent:Will the government pay part of it?:talk_to_person,question',
      'answer:Will the government pay part of it?',
    ]);
  });

  it("hands over on the model's intent and ends handed over with the step's own outcome", async () => {
    const flow = run(
      leadQualification,
      new ScriptedModel({ intents: { 'Can I just speak with someone real?': 'talk_to_person' } }),
    );
    await reachQuestions(flow);
    const handover = await flow.onCallerTurn({ text: 'Can I just speak with someone real?' });
    expect(handover.handover).toEqual({ stepKey: 'consultant' });
    expect((await flow.onHandoverResult(true)).end).toEqual({
      outcomeKey: 'qualified_transferred',
      outcomeLabel: 'Qualified, transferred',
      handedOver: true,
    });
  });

  it('falls back to the examples when the model fails, hangs, or names an intent not on offer', async () => {
    for (const model of [
      new ScriptedModel({ fail: true }),
      new ScriptedModel({ hang: true }),
      new ScriptedModel({ intents: { 'how much does it cost': 'pricing' } }),
    ]) {
      const flow = new FlowExecutor(leadQualification.flow, {
        variables: leadQualification.variables,
        today: TODAY,
        llm: model,
        llmTimeoutMs: 20,
      });
      await reachQuestions(flow);
      const search = await flow.onCallerTurn({ text: 'how much does it cost' });
      expect(search.toolCall?.tool).toBe('knowledge_search');
    }
  });

  it('extracts a text field through the model and checks typed values it extracts', async () => {
    const flow: FlowDefinition = {
      version: 1,
      start: 'name',
      steps: {
        name: {
          kind: 'ask',
          question: 'Your name?',
          field: { key: 'name', label: 'Name', type: 'text' },
          next: 'size',
        },
        size: {
          kind: 'ask',
          question: 'Team size?',
          field: { key: 'size', label: 'Team size', type: 'number' },
          capture: ['llm'],
          retries: 0,
          next: 'done',
          fallback: 'done',
        },
        done: { kind: 'end', outcome: { key: 'done', label: 'Done' }, text: 'Thanks {{name}}.' },
      },
    };
    const model = new ScriptedModel({
      fields: { 'uh yeah my name is Asha Rao': 'Asha Rao', 'we are a dozen or so': '12' },
    });
    const executor = new FlowExecutor(flow, { llm: model });
    await executor.start();
    await executor.onCallerTurn({ text: 'uh yeah my name is Asha Rao' });
    const end = await executor.onCallerTurn({ text: 'we are a dozen or so' });
    expect(end.end?.closing).toBe('Thanks Asha Rao.');
    expect(executor.result().captured).toEqual({ name: 'Asha Rao', size: 12 });

    // Without a model the same llm-only step reads the transcript instead.
    const plain = new FlowExecutor(flow);
    await plain.start();
    await plain.onCallerTurn({ text: 'Asha' });
    await plain.onCallerTurn({ text: 'about forty people' });
    expect(plain.result().captured).toEqual({ name: 'Asha', size: 40 });
  });
});
