/**
 * create_voice_agent: walks the host's model through building a voice agent with the user — asking for what is
 * missing rather than inventing it, checking voices and numbers, creating, then offering a test call.
 */
import type { Prompt } from './prompt.ts';

export const createVoiceAgent: Prompt = {
  listing: {
    name: 'create_voice_agent',
    title: 'Create a voice agent',
    description:
      'Build a phone agent with the user step by step: purpose, identity, task, greeting, voice, number, then a test call.',
    arguments: [
      {
        name: 'purpose',
        description: 'What the agent is for, in a sentence (e.g. "book dental appointments")',
        required: false,
      },
      { name: 'business', description: 'The business it speaks for', required: false },
      { name: 'language', description: 'The language it speaks, e.g. en-GB', required: false },
    ],
  },
  expand(args) {
    const known = [
      args.purpose ? `Purpose: ${args.purpose}` : undefined,
      args.business ? `Business: ${args.business}` : undefined,
      args.language ? `Language: ${args.language}` : undefined,
    ].filter(Boolean);
    const text = [
      'Help me create a voice agent on Parley with the Parley MCP tools. Work through these steps, asking me for anything missing instead of inventing it:',
      '1. Purpose and audience: who calls or is called, and what a good call ends with.',
      '2. identity (who the agent is, one or two sentences), personality (how it speaks), and task: the call step by step, ' +
        'including what to ask, what to do when the person is unsure, and when to end the call. Keep the three short: they share a budget of about 4,000 characters.',
      '3. greeting: the first sentence, natural when spoken aloud; use {{placeholders}} only for values we will pass per call.',
      '4. Voice and language: call agents_list_voices for the language and suggest two or three voices.',
      '5. Show me the whole configuration and wait for my go-ahead, then call agents_create.',
      '6. Check numbers_list: if a number is free, offer to route it to the agent with numbers_assign (confirm-gated: show me the preview first).',
      '7. Offer a test call to my own phone with calls_place (confirm-gated and billed: preview first, and only with my approval).',
      ...(known.length ? ['', 'What I have told you already:', ...known] : []),
    ].join('\n');
    return {
      description: 'Create a voice agent step by step',
      messages: [{ role: 'user', content: { type: 'text', text } }],
    };
  },
};
