/**
 * /ai-enhancement end to end: the control plane rewrites agent fields through a real LLM worker role over the bus,
 * which calls the engine's local fake of an OpenAI-compatible server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bus } from '@parley/engine/bus';
import { startTestApp, type TestApp } from './support/app.ts';
import { fingerprint } from './support/isolation/snapshot.ts';
import { seedOrganisation, type SeededOrganisation } from './support/seed.ts';
import { createIsolatedBus, startTestLlm, TEST_LLM_MODEL, type TestLlm } from './support/workers.ts';

let bus: Bus;
let t: TestApp;
let llm: TestLlm;
let org: SeededOrganisation;

beforeAll(async () => {
  bus = await createIsolatedBus();
  // The limits have their own test file; here they would only count this file's requests.
  t = await startTestApp({ bus, rateLimits: { aiEnhancementPerIp: 10_000, aiEnhancementPerKey: 10_000 } });
  llm = await startTestLlm(bus);
  org = await seedOrganisation(t.db.sql);
});
afterAll(async () => {
  await llm?.close();
  await t?.close();
  await bus?.close();
});

const enhanceField = (body: unknown) =>
  t.call(org.key, { method: 'POST', url: '/api/v1/ai-enhancement/enhance-field', payload: body as never });
const enhanceFields = (body: unknown) =>
  t.call(org.key, { method: 'POST', url: '/api/v1/ai-enhancement/enhance-fields', payload: body as never });

type Message = { role: string; content: string };
/** What the model was asked: the system prompt and the user text of each chat request, in arrival order. */
const asked = () =>
  llm.fake.chat.requests.map((r) => {
    const messages = r.body.messages as Message[];
    return {
      system: messages.find((m) => m.role === 'system')?.content ?? '',
      user: messages.find((m) => m.role === 'user')?.content ?? '',
    };
  });

describe('POST /ai-enhancement/enhance-field', () => {
  it('rewrites one field with the model, telling it what a good field of that type is, and saves nothing', async () => {
    const before = await fingerprint(t.db.sql, org.organisationId);
    const seen = llm.fake.chat.requests.length;
    llm.fake.chat.enqueue({
      tokens: ['Hi {{customer_name}}, ', 'this is Maya from Acme Dental. ', 'How can I help you today?'],
    });
    const res = await enhanceField({
      fieldType: 'greetingMessage',
      text: 'hello {{customer_name}} maya here from acme dental',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      data: {
        fieldType: 'greetingMessage',
        originalText: 'hello {{customer_name}} maya here from acme dental',
        enhancedText: 'Hi {{customer_name}}, this is Maya from Acme Dental. How can I help you today?',
      },
    });
    expect(llm.fake.chat.requests).toHaveLength(seen + 1);
    const request = llm.fake.chat.requests.at(-1)!.body;
    expect(request).toMatchObject({ model: TEST_LLM_MODEL, stream: true });
    const [system, user] = request.messages as Message[];
    expect(system!.role).toBe('system');
    expect(system!.content).toContain('greeting');
    expect(system!.content).toContain('{{customer_name}}'); // the placeholder rule, by example
    expect(user).toEqual({ role: 'user', content: 'hello {{customer_name}} maya here from acme dental' });
    expect(await fingerprint(t.db.sql, org.organisationId)).toBe(before);
  });

  it('gives each field type its own instructions', async () => {
    const prompts = new Set<string>();
    for (const fieldType of [
      'agentIdentity',
      'agentPersonality',
      'agentTask',
      'greetingMessage',
      'closingMessage',
      'escalationProtocol',
      'pronunciationGuide',
    ]) {
      const res = await enhanceField({ fieldType, text: `some ${fieldType} text` });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.fieldType).toBe(fieldType);
      prompts.add(asked().at(-1)!.system);
    }
    expect(prompts.size).toBe(7);
  });

  it('returns the text without the quotes a model sometimes wraps it in', async () => {
    llm.fake.chat.enqueue({ tokens: ['"Thanks for calling, ', 'goodbye!"'] });
    const res = await enhanceField({ fieldType: 'closingMessage', text: 'thanks bye' });
    expect(res.json().data.enhancedText).toBe('Thanks for calling, goodbye!');
  });

  it('refuses an unknown fieldType and empty text, naming the field, without asking the model', async () => {
    const seen = llm.fake.chat.requests.length;
    const unknown = await enhanceField({ fieldType: 'agentMood', text: 'calm' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors).toEqual([
      { field: 'fieldType', message: expect.stringContaining('must be one of: agentIdentity,') },
    ]);
    for (const text of ['', '  \n ']) {
      const empty = await enhanceField({ fieldType: 'agentTask', text });
      expect(empty.statusCode).toBe(400);
      expect(empty.json()).toMatchObject({
        code: 'validation_failed',
        errors: [{ field: 'text', message: 'must not be empty' }],
      });
    }
    expect((await enhanceField({ fieldType: 'agentTask' })).json().errors).toEqual([
      { field: 'text', message: 'is required' },
    ]);
    expect((await enhanceField({ fieldType: 'agentTask', text: 'x'.repeat(8_001) })).statusCode).toBe(400);
    expect((await enhanceField({ fieldType: 'agentTask', text: 'ok', extra: 1 })).json().errors).toEqual([
      { field: 'extra', message: 'is not an accepted field' },
    ]);
    expect(llm.fake.chat.requests).toHaveLength(seen);
  });

  it("answers 500 with the model's own message when the model fails", async () => {
    llm.fake.chat.enqueue({
      error: {
        status: 400,
        message: "This model's maximum context length is 8192 tokens",
        code: 'context_length_exceeded',
      },
    });
    const res = await enhanceField({ fieldType: 'agentTask', text: 'Book appointments.' });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toMatchObject({ success: false, code: 'ai_model_failed' });
    expect(res.json().message).toContain("This model's maximum context length is 8192 tokens");
    expect(res.json().message).toContain('agentTask');
  });

  it('answers 500 when the answer was cut off or empty, rather than returning a broken field', async () => {
    llm.fake.chat.enqueue({ tokens: ['You are Maya, the'], finishReason: 'length' }, { tokens: [' '] });
    const cut = await enhanceField({ fieldType: 'agentIdentity', text: 'maya, bookings' });
    expect(cut.statusCode).toBe(500);
    expect(cut.json().message).toContain('cut off');
    const empty = await enhanceField({ fieldType: 'agentIdentity', text: 'maya, bookings' });
    expect(empty.statusCode).toBe(500);
    expect(empty.json().message).toContain('empty');
  });

  it('refuses a rewrite that dropped or invented a {{placeholder}}: saved, it would break calls', async () => {
    llm.fake.chat.enqueue(
      { tokens: ['Hello there, this is Maya.'] },
      { tokens: ['Hello {{first_name}}, this is {{agent_name}}.'] },
    );
    const dropped = await enhanceField({ fieldType: 'greetingMessage', text: 'hi {{ first_name }} its maya' });
    expect(dropped.statusCode).toBe(500);
    expect(dropped.json().message).toContain('dropped {{first_name}}');
    const invented = await enhanceField({ fieldType: 'greetingMessage', text: 'hi {{first_name}} its maya' });
    expect(invented.statusCode).toBe(500);
    expect(invented.json().message).toContain('added {{agent_name}}');
  });
});

describe('POST /ai-enhancement/enhance-fields', () => {
  it('rewrites every field in parallel and returns the results in the order asked', async () => {
    const fields = [
      { fieldType: 'agentIdentity', text: 'maya, receptionist at acme dental' },
      { fieldType: 'agentTask', text: 'book cleanings for {{patient_name}}' },
      { fieldType: 'pronunciationGuide', text: 'Nguyen = win' },
    ];
    const answers = [
      'You are Maya, the receptionist of Acme Dental.',
      'Book a cleaning for {{patient_name}}.',
      'Nguyen: say it as win',
    ];
    // Each answer waits before it starts: with the fields asked one after another, the fake would see one request
    // at a time for that long.
    llm.fake.chat.enqueue(...answers.map((answer) => ({ tokens: [answer], headerDelayMs: 2_000 })));
    const seen = llm.fake.chat.requests.length;
    const pending = enhanceFields({ fields });
    await expect.poll(() => llm.fake.chat.requests.length - seen, { timeout: 1_500 }).toBe(3);
    const res = await pending;
    expect(res.statusCode, res.body).toBe(200);
    // The fake hands out its scripts in arrival order: the field whose request came k-th got answers[k].
    const order = asked()
      .slice(seen)
      .map((a) => a.user);
    expect(res.json().data.results).toEqual(
      fields.map((field) => ({
        fieldType: field.fieldType,
        originalText: field.text,
        enhancedText: answers[order.indexOf(field.text)],
      })),
    );
    expect(
      new Set(
        asked()
          .slice(seen)
          .map((a) => a.system),
      ).size,
    ).toBe(3);
  });

  it('fails the whole request when one field fails, naming it, and stops the others', async () => {
    const fields = [
      { fieldType: 'agentIdentity', text: 'maya' },
      { fieldType: 'agentPersonality', text: 'friendly' },
      { fieldType: 'closingMessage', text: 'bye' },
    ];
    const slow = { tokens: Array.from({ length: 30 }, (_, i) => `word${i} `), chunkDelayMs: 100 };
    const seen = llm.fake.chat.requests.length;
    llm.fake.chat.enqueue(
      slow,
      { error: { status: 500, message: 'The server had an error while processing your request.' } },
      slow,
    );
    const started = performance.now();
    const res = await enhanceFields({ fields });
    expect(performance.now() - started).toBeLessThan(2_500); // not the ~3 s the slow answers take
    expect(res.statusCode).toBe(500);
    const body = res.json();
    expect(body).toMatchObject({ success: false, code: 'ai_model_failed' });
    expect(body.data).toBeUndefined();
    expect(body.message).toContain('The server had an error while processing your request.');
    const requests = llm.fake.chat.requests.slice(seen);
    const failedIndex = fields.findIndex((f) => f.text === asked()[seen + 1]!.user);
    expect(body.message).toContain(`${fields[failedIndex]!.fieldType} (fields.${failedIndex}.text)`);
    // The rewrites still streaming were cancelled: the model's HTTP requests were hung up on.
    expect(await requests[0]!.outcome).toMatchObject({ clientClosedEarly: true });
    expect(await requests[2]!.outcome).toMatchObject({ clientClosedEarly: true });
  });

  it('refuses anything but 1 to 7 fields, and names a bad field by its place', async () => {
    const seen = llm.fake.chat.requests.length;
    const one = { fieldType: 'agentTask', text: 'x' };
    for (const fields of [[], Array.from({ length: 8 }, () => one)]) {
      const res = await enhanceFields({ fields });
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([{ field: 'fields', message: expect.any(String) }]);
    }
    expect((await enhanceFields({})).json().errors).toEqual([{ field: 'fields', message: 'is required' }]);
    const badType = await enhanceFields({ fields: [one, one, { fieldType: 'nope', text: 'x' }] });
    expect(badType.json().errors).toEqual([
      { field: 'fields.2.fieldType', message: expect.stringContaining('must be one of') },
    ]);
    const emptyText = await enhanceFields({ fields: [one, { fieldType: 'greetingMessage', text: ' ' }] });
    expect(emptyText.statusCode).toBe(400);
    expect(emptyText.json().errors).toEqual([{ field: 'fields.1.text', message: 'must not be empty' }]);
    expect(llm.fake.chat.requests).toHaveLength(seen);
  });

  it('accepts seven fields', async () => {
    const fields = [
      'agentIdentity',
      'agentPersonality',
      'agentTask',
      'greetingMessage',
      'closingMessage',
      'escalationProtocol',
      'pronunciationGuide',
    ].map((fieldType) => ({ fieldType, text: `current ${fieldType}` }));
    const res = await enhanceFields({ fields });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.results.map((r: { fieldType: string }) => r.fieldType)).toEqual(
      fields.map((f) => f.fieldType),
    );
  });
});
