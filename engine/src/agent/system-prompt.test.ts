import { describe, expect, it } from 'vitest';
import { buildSystemPrompt } from './system-prompt.ts';
import { fillTemplate, placeholders } from '../protocol/template.ts';

describe('templates', () => {
  it('fill placeholders from variables, tolerating spaces, and drop unknown ones', () => {
    expect(fillTemplate('Hi {{ name }}, about order {{order.id}}{{missing}}.', { name: 'Asha', 'order.id': 42 })).toBe(
      'Hi Asha, about order 42.',
    );
    expect(placeholders('{{a}} and {{ b }} and {{a}}')).toEqual(['a', 'b']);
  });
});

describe('system prompt', () => {
  it('assembles identity, personality, task, pronunciation, accent and custom instructions with variables filled', () => {
    const prompt = buildSystemPrompt(
      {
        agentIdentity: 'You are Maya from {{company}}.',
        agentPersonality: 'Warm and brief.',
        agentTask: 'Confirm the delivery slot for {{customer}}.',
        pronunciation: 'Say Parley as PAR-lee.',
        languageAccent: 'Neutral Indian English.',
        language: 'en-IN',
        contextMemory: { custom_instructions: 'Never discuss pricing.' },
      },
      { company: 'Acme', customer: 'Ravi' },
    );
    expect(prompt).toContain('## Identity\nYou are Maya from Acme.');
    expect(prompt).toContain('## Task\nConfirm the delivery slot for Ravi.');
    expect(prompt).toContain('Say Parley as PAR-lee.');
    expect(prompt).toContain('Speak en-IN. Neutral Indian English.');
    expect(prompt).toContain('## Additional instructions\nNever discuss pricing.');
    expect(prompt).toContain('- customer: Ravi');
    expect(prompt).toContain('end_call');
  });

  it('leaves out empty sections', () => {
    const prompt = buildSystemPrompt(
      { agentIdentity: 'You are a helper.', agentPersonality: '  ', agentTask: null },
      {},
    );
    expect(prompt).not.toContain('## Personality');
    expect(prompt).not.toContain('## Task');
    expect(prompt).not.toContain('What we know');
  });
});
