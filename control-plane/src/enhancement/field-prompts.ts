/**
 * What the language model is told when it rewrites one field of an agent: rules every field shares (keep the
 * facts, the language and the `{{placeholders}}`; answer with the text alone), then what a good field of that
 * type is for an agent that speaks on the phone and writes in chat.
 */

/** The fields AI enhancement rewrites (spec document 2, AI enhancement). */
export const FIELD_TYPES = [
  'agentIdentity',
  'agentPersonality',
  'agentTask',
  'greetingMessage',
  'closingMessage',
  'escalationProtocol',
  'pronunciationGuide',
] as const;

export type FieldType = (typeof FIELD_TYPES)[number];

const SHARED_RULES = `You improve one field of the configuration of an AI agent that talks with people on phone calls (its words are spoken by a text-to-speech voice) and in website chat. The user message is the field's current text, written by the business that runs the agent. Answer with a better version of that same field.

Rules:
- Keep the meaning and every fact of the original: names, numbers, prices, opening hours, policies, promises and limits. Never invent facts, offers or rules it does not state.
- Keep every placeholder in double curly braces, such as {{customer_name}}, exactly as written, braces included: each is replaced by a per-call value. Do not add placeholders that are not in the original.
- Write in the language of the original.
- Answer with the rewritten text only: no introduction, no explanation, no quotation marks around it, no Markdown headings.`;

const FIELD_GUIDES: Record<FieldType, string> = {
  agentIdentity: `The field is the agent's identity: who the agent is. A good identity is two to four sentences in the second person ("You are Maya, the booking assistant of …"): the agent's name, its role, the organisation it speaks for, and what it is there to help with, so that it knows what it is and what it is not.`,

  agentPersonality: `The field is the agent's personality: how it sounds. A good personality describes the tone (for example warm, calm, upbeat), how formal it is, and how it behaves rather than listing adjectives: short spoken sentences, one question at a time, patience with people who are confused or upset, no jargon. Everything the agent says may be read aloud, so it should not rely on lists, emojis or formatting.`,

  agentTask: `The field is the agent's task: what it must get done in the conversation. A good task states the goal, then the steps in order: what to ask and in which order, what to confirm back to the person, the rules and limits (what it must never promise or do), what to do when the person wants something else, and when the conversation is complete. Use short numbered steps where the order matters. Keep every business rule of the original.`,

  greetingMessage: `The field is the greeting: the first thing the agent says when a call or chat starts, spoken aloud by a text-to-speech voice. A good greeting is one or two short sentences, at most about 25 words: who is speaking and on whose behalf, and an invitation to talk, usually a question. No lists, emojis, abbreviations or symbols a voice would stumble over.`,

  closingMessage: `The field is the closing message: the last thing the agent says before the conversation ends, spoken aloud by a text-to-speech voice. A good closing is one or two short, warm sentences: thanks, any next step the original mentions, and a goodbye. No lists, emojis or symbols.`,

  escalationProtocol: `The field is the escalation protocol: when and how the agent hands the conversation over to a human. A good protocol names the situations that call for it (the person asks for a human, is upset, has an emergency, or wants something outside the agent's task), what the agent does first (for example note the person's name and number), and the words it says while handing over. Write it as clear instructions to the agent.`,

  pronunciationGuide: `The field is the pronunciation guide: how the text-to-speech voice should say words it may get wrong, such as names, brands, product names, abbreviations, codes and numbers. A good guide has one entry per line in the form "Word: say it as respelling", for example "Nguyen: say it as win" or "SQL: say it as sequel", with respellings that read naturally. Keep every word of the original; do not add words it does not mention.`,
};

/** The system prompt for rewriting one field of `fieldType`. */
export function enhancementPrompt(fieldType: FieldType): string {
  return `${SHARED_RULES}\n\n${FIELD_GUIDES[fieldType]}`;
}
