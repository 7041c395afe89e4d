/**
 * The language model a FLOW agent leans on when plain matching is not enough (intents, free-text fields, answers
 * from search results), built on the call's LLM stream. Each question asks for one short, strictly formatted
 * answer; anything else counts as no answer, and the flow's own fallback applies.
 */
import type { FlowIntent, FlowLanguageModel } from '../agent/flow/index.ts';
import type { CapturedField } from '../protocol/index.ts';
import type { ChatMessage } from '../providers/llm-provider.ts';
import type { LlmClient } from '../workers/client/llm-client.ts';

export function flowLanguageModel(llm: LlmClient, signal: AbortSignal): FlowLanguageModel {
  const ask = async (system: string, user: string): Promise<string> => {
    const messages: ChatMessage[] = [
      { role: 'system', content: system },
      { role: 'user', content: user },
    ];
    let text = '';
    for await (const event of llm.turn({ messages, temperature: 0 }, signal))
      if (event.type === 'token') text += event.text;
    return text.trim();
  };
  return {
    async classifyIntent(text: string, intents: readonly FlowIntent[]) {
      const list = intents.map((i) => `- ${i.intent}${i.description ? `: ${i.description}` : ''}`).join('\n');
      const answer = await ask(
        `Classify what the caller means. Answer with exactly one intent name from this list, or "none":\n${list}`,
        text,
      );
      const name = answer.replace(/["'.`]/g, '').trim();
      return intents.some((i) => i.intent === name) ? name : undefined;
    },
    async extractField(text: string, field: CapturedField) {
      const choices = field.choices?.length ? ` One of: ${field.choices.map((c) => c.value).join(', ')}.` : '';
      const answer = await ask(
        `Extract the caller's "${field.label}" (type ${field.type}) from their words.${choices} Answer with JSON ` +
          '{"value": …} using null when they did not give it. No other text.',
        text,
      );
      try {
        return (JSON.parse(answer.replace(/^```(?:json)?|```$/g, '')) as { value?: unknown }).value ?? undefined;
      } catch {
        return undefined;
      }
    },
    async answer(question: string, context: unknown) {
      const answer = await ask(
        'Answer the caller in one or two short spoken sentences using only these search results; answer "none" when ' +
          `they do not say:\n${JSON.stringify(context).slice(0, 4_000)}`,
        question,
      );
      return answer && answer.toLowerCase() !== 'none' ? answer : undefined;
    },
  };
}
