/** A PROMPT agent's resultsConfig: outcomes and fields, and a 400 naming each problem of an invalid one. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './support/app.ts';
import { seedOrganisation, type SeededOrganisation } from './support/seed.ts';

let t: TestApp;
let org: SeededOrganisation;

beforeAll(async () => {
  t = await startTestApp();
  org = await seedOrganisation(t.db.sql, 'Results');
});
afterAll(() => t?.close());

const agent = {
  name: 'Survey',
  agentIdentity: 'You run a short survey.',
  agentTask: 'Ask three questions.',
  greetingMessage: 'Hi',
};
const create = (resultsConfig: unknown) =>
  t.call(org.key, { method: 'POST', url: '/api/v1/voice/agents', payload: { ...agent, resultsConfig } });

describe('resultsConfig', () => {
  it('stores outcomes and fields of every type, both lists always present', async () => {
    const config = {
      outcomes: [
        { key: 'interested', label: 'Interested', description: 'Wants a call back' },
        { key: 'not_now', label: 'Not now' },
      ],
      fields: [
        { key: 'age', label: 'Age', type: 'number' },
        { key: 'mobile', label: 'Mobile', type: 'phone' },
        { key: 'plan', label: 'Plan', type: 'choice', choices: ['basic', 'pro'] },
        { key: 'consent', label: 'Consent', type: 'yes_no' },
        { key: 'notes', label: 'Notes', type: 'text' },
        { key: 'visit', label: 'Visit', type: 'date' },
      ],
    };
    const res = await create(config);
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.resultsConfig).toEqual(config);
    expect((await create({ outcomes: [{ key: 'done', label: 'Done' }] })).json().data.resultsConfig).toEqual({
      outcomes: [{ key: 'done', label: 'Done' }],
      fields: [],
    });
  });

  it('null, or no outcomes and no fields, tracks nothing; null clears a stored one', async () => {
    expect((await create(null)).json().data.resultsConfig).toBeNull();
    expect((await create({})).json().data.resultsConfig).toEqual({ outcomes: [], fields: [] });
    const data = (await create({ outcomes: [{ key: 'a', label: 'A' }] })).json().data;
    const cleared = await t.call(org.key, {
      method: 'PUT',
      url: `/api/v1/voice/agents/${data.id}`,
      payload: { resultsConfig: null },
    });
    expect(cleared.json().data.resultsConfig).toBeNull();
  });

  it('names every problem of an invalid config at once', async () => {
    const res = await create({
      outcomes: [
        { key: 'ok', label: 'OK' },
        { key: 'ok', label: 'Again' },
        { key: 'no_result', label: 'None' },
        { key: '9lives', label: 'Bad' },
      ],
      fields: [
        { key: 'plan', label: 'Plan', type: 'choice' },
        { key: 'age', label: 'Age', type: 'number', choices: ['1'] },
        { key: 'age', label: 'Age again', type: 'text' },
        { key: 'size', label: 'Size', type: 'choice', choices: ['S', 's'] },
      ],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { field: 'resultsConfig.outcomes.1.key', message: 'outcome "ok" is listed twice' },
      { field: 'resultsConfig.outcomes.2.key', message: '"no_result" is reserved for calls without a result' },
      {
        field: 'resultsConfig.outcomes.3.key',
        message: 'must start with a letter and hold only letters, digits, _ and - (at most 64)',
      },
      { field: 'resultsConfig.fields.0.choices', message: 'is required for type choice: list the options' },
      {
        field: 'resultsConfig.fields.1.choices',
        message: 'only fields of type choice have choices; this one is number',
      },
      { field: 'resultsConfig.fields.2.key', message: 'field "age" is listed twice' },
      { field: 'resultsConfig.fields.3.choices', message: 'choice "s" is listed twice' },
    ]);
  });

  it('refuses unknown types and fields, and missing labels, by schema', async () => {
    const res = await create({
      outcomes: [{ key: 'a' }],
      fields: [{ key: 'b', label: 'B', type: 'colour' }],
      extra: true,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual(
      expect.arrayContaining([
        { field: 'resultsConfig.outcomes.0.label', message: 'is required' },
        { field: 'resultsConfig.fields.0.type', message: 'must be one of: number, phone, choice, yes_no, text, date' },
        { field: 'resultsConfig.extra', message: 'is not an accepted field' },
      ]),
    );
  });
});
