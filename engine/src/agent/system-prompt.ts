/**
 * The system prompt of a PROMPT agent: who it is, how it behaves, what it must do, how to say things, plus the
 * rules of its medium — a voice agent is heard, not read; a chat agent is read in a small chat window.
 * Placeholders are filled from the conversation's variables.
 */
import { fillTemplate, type Variables } from '../protocol/template.ts';

export interface AgentInstructions {
  agentIdentity: string;
  agentPersonality?: string | null;
  agentTask?: string | null;
  pronunciation?: string | null;
  languageAccent?: string | null;
  language?: string | null;
  contextMemory?: { custom_instructions?: unknown } | null;
}

/** How a voice agent must write: every word is spoken aloud by a TTS voice on a phone line. */
const VOICE_RULES = [
  'You are speaking on a live voice call; everything you write is spoken aloud.',
  'Answer in one to three short sentences. Do not use lists, markdown, emojis or URLs.',
  'Say numbers, dates and amounts the way a person would say them.',
  'If you did not understand the caller, ask them to repeat.',
  'When the conversation is finished, or the caller asks to hang up, call the end_call tool.',
].join('\n');

/** How a chat agent must write: a website visitor reads it in a small chat panel. */
const CHAT_RULES = [
  'You are chatting in writing with a visitor of a website, in a small chat window.',
  'Answer in one to four short sentences of plain text; no markdown, headings or tables.',
  'If you did not understand the visitor, ask them to rephrase.',
  'Never invent facts, prices or promises that your instructions do not give you.',
].join('\n');

/** Where the agent's words go: spoken on a call, or written in a chat. */
export type AgentMedium = 'voice' | 'chat';

export function buildSystemPrompt(
  agent: AgentInstructions,
  variables: Variables,
  medium: AgentMedium = 'voice',
): string {
  const sections: [string, string | null | undefined][] = [
    ['Identity', agent.agentIdentity],
    ['Personality', agent.agentPersonality],
    ['Task', agent.agentTask],
    ['Pronunciation', agent.pronunciation],
    [
      'Language and accent',
      [agent.language ? `Speak ${agent.language}.` : '', agent.languageAccent ?? ''].join(' ').trim(),
    ],
    [
      'Additional instructions',
      typeof agent.contextMemory?.custom_instructions === 'string'
        ? agent.contextMemory.custom_instructions
        : undefined,
    ],
  ];
  const known = Object.entries(variables).filter(([, v]) => v !== undefined && v !== null && v !== '');
  const body = sections
    .filter(([, text]) => text && text.trim())
    .map(([title, text]) => `## ${title}\n${fillTemplate(text!, variables)}`)
    .join('\n\n');
  const facts = known.length
    ? `\n\n## What we know about this ${medium === 'chat' ? 'conversation' : 'call'}\n${known.map(([k, v]) => `- ${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`).join('\n')}`
    : '';
  const rules = medium === 'chat' ? `## How to write\n${CHAT_RULES}` : `## How to speak\n${VOICE_RULES}`;
  return `${body}${facts}\n\n${rules}`;
}
