import { TypeCompiler } from '@sinclair/typebox/compiler';
import { describe, expect, it } from 'vitest';
import { ResultsConfig, type FlowDefinition } from '../../protocol/flow-definition.ts';
import { appointmentConfirmation, exampleFlows, leadQualification } from './examples.ts';
import { deriveResultsConfig } from './flow-results.ts';

describe('deriveResultsConfig', () => {
  it('lists the outcomes of end and handover steps and the fields of ask steps, in the order the call reads', () => {
    expect(deriveResultsConfig(appointmentConfirmation.flow)).toEqual({
      outcomes: [
        { key: 'confirmed', label: 'Confirmed', description: 'The patient will come as booked.' },
        { key: 'rescheduled', label: 'Rescheduled', description: 'The patient picked a new day and it was booked.' },
        { key: 'handed_over', label: 'Handed over to a person' },
        { key: 'callback_requested', label: 'Callback requested' },
        { key: 'no_response', label: 'No clear answer' },
      ],
      fields: [
        { key: 'confirmed', label: 'Confirmed', type: 'yes_no' },
        { key: 'preferred_date', label: 'Preferred date', type: 'date' },
      ],
    });
  });

  it('gives choice fields their choice values and handover steps their own outcome', () => {
    const config = deriveResultsConfig(leadQualification.flow);
    expect(config.fields.find((field) => field.key === 'timeline')).toEqual({
      key: 'timeline',
      label: 'Timeline',
      type: 'choice',
      choices: ['This month', 'Within three months', 'Later'],
    });
    expect(config.fields.map((field) => field.key)).toEqual([
      'interested',
      'monthly_bill',
      'timeline',
      'callback_number',
    ]);
    expect(config.outcomes.map((outcome) => outcome.key)).toContain('qualified_transferred');
    expect(config.outcomes.map((outcome) => outcome.key)).not.toContain('handed_over');
  });

  it('lists a field or outcome used in several steps once, merging choices and keeping a description', () => {
    const flow: FlowDefinition = {
      version: 1,
      start: 'a',
      steps: {
        a: {
          kind: 'ask',
          question: 'Size?',
          field: { key: 'size', label: 'Size', type: 'choice', choices: [{ value: 'S' }, { value: 'M' }] },
          next: 'b',
          fallback: 'end1',
        },
        b: {
          kind: 'ask',
          question: 'Size again?',
          field: { key: 'size', label: 'Size', type: 'choice', choices: [{ value: 'M' }, { value: 'L' }] },
          next: 'end2',
        },
        end1: { kind: 'end', outcome: { key: 'done', label: 'Done' } },
        end2: { kind: 'end', outcome: { key: 'done', label: 'Done', description: 'Finished.' } },
        unreachable_end: { kind: 'end', outcome: { key: 'spare', label: 'Spare' } },
      },
    };
    expect(deriveResultsConfig(flow)).toEqual({
      outcomes: [
        { key: 'done', label: 'Done', description: 'Finished.' },
        { key: 'spare', label: 'Spare' },
      ],
      fields: [{ key: 'size', label: 'Size', type: 'choice', choices: ['S', 'M', 'L'] }],
    });
  });

  it('produces a resultsConfig the schema accepts for every example', () => {
    const check = TypeCompiler.Compile(ResultsConfig);
    for (const example of exampleFlows) expect(check.Check(deriveResultsConfig(example.flow))).toBe(true);
  });
});
