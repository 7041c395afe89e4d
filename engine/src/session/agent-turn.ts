/**
 * One agent reply: the LLM streams tokens, complete clauses go to TTS as soon as they are whole (several
 * synthesising at once), and their audio is queued for the pacing clock strictly in order. Tool calls run between
 * LLM rounds. Aborting the signal (barge-in, hang-up) cancels the LLM request, every TTS request and the tools.
 */
import { Framer } from '../audio/framer.ts';
import { ClauseChunker } from '../agent/clause-chunker.ts';
import type { CallTool } from '../agent/knowledge-tools.ts';
import { MAX_TOOL_ROUNDS, runWebhookToolCall, type ToolRecord } from '../agent/tool-runner.ts';
import { toolDefinition, type WebhookTool } from '../agent/webhook-tool.ts';
import type { ChatMessage, ToolCall, ToolDefinition } from '../providers/llm-provider.ts';
import type { LlmClient } from '../workers/client/llm-client.ts';
import type { SayOptions, TtsClient } from '../workers/client/tts-client.ts';
import type { PacedAgentAudio } from './paced-agent-audio.ts';
import { playedText } from './played-text.ts';
import type { SpeechHandle } from './speech-handle.ts';

export { MAX_TOOL_ROUNDS };

export const END_CALL_TOOL: ToolDefinition = {
  name: 'end_call',
  description:
    'Hang up the call. Use it once the conversation is complete or the caller asks to end it; say goodbye first.',
  parameters: { type: 'object', properties: { reason: { type: 'string', description: 'Why the call ends' } } },
};

export interface SpokenClause {
  tag: string;
  /** The LLM round the clause was written in. */
  round: number;
  text: string;
  /** Frames queued for this clause so far. */
  frames: number;
}

export type { ToolRecord };

export interface TurnTimings {
  /** performance.now() at these moments. */
  llmSentAt?: number;
  firstTokenAt?: number;
  firstClauseAt?: number;
  firstAudioAt?: number;
}

export interface TurnRound {
  /** What the model wrote in this round, with the tool calls it made. */
  assistant: ChatMessage & { role: 'assistant' };
  /** The results of those tool calls. */
  toolResults: ChatMessage[];
}

export interface AgentTurnResult {
  clauses: SpokenClause[];
  /** The LLM rounds, for the conversation (the session trims each round's text to what was played). */
  rounds: TurnRound[];
  tools: ToolRecord[];
  endCall: boolean;
  timings: TurnTimings;
}

export interface AgentTurnInput {
  turn: number;
  messages: readonly ChatMessage[];
  tools: readonly WebhookTool[];
  /** Tools the engine runs itself (knowledge_search, product_search); offered before the webhooks. */
  builtins?: readonly CallTool[];
  llm: LlmClient;
  tts: TtsClient;
  voice: SayOptions;
  outbound: PacedAgentAudio;
  /** The reply as an utterance: its frames are counted against it. */
  speech: SpeechHandle;
  signal: AbortSignal;
  /** Milliseconds since the call started, for tool event times. */
  now: () => number;
}

/**
 * The conversation messages of a reply cut short: each LLM round keeps its tool calls and their results (they
 * happened), but only the words of it the caller heard; a round still being written keeps its heard words.
 */
export function heardMessages(result: AgentTurnResult, playedFrames: (tag: string) => number): ChatMessage[] {
  const messages: ChatMessage[] = [];
  const lastRound = Math.max(result.rounds.length - 1, ...result.clauses.map((c) => c.round));
  for (let round = 0; round <= lastRound; round += 1) {
    const text = playedText(
      result.clauses.filter((c) => c.round === round),
      playedFrames,
    );
    const done = result.rounds[round];
    if (done) messages.push({ ...done.assistant, content: text }, ...done.toolResults);
    else if (text) messages.push({ role: 'assistant', content: text });
  }
  return messages;
}

export function emptyTurnResult(): AgentTurnResult {
  return { clauses: [], rounds: [], tools: [], endCall: false, timings: {} };
}

/**
 * Runs the reply, filling `result` as it goes (clauses appear as they are written, so an interruption can see
 * what was said so far); resolves when everything is queued or the signal aborted.
 */
export async function runAgentTurn(
  input: AgentTurnInput,
  result: AgentTurnResult = emptyTurnResult(),
): Promise<AgentTurnResult> {
  const speaker = new ClauseSpeaker(input, result);
  const builtins = input.builtins ?? [];
  const definitions = [...builtins.map((t) => t.definition), ...input.tools.map(toolDefinition), END_CALL_TOOL];
  const messages = [...input.messages];
  for (let round = 0; round < MAX_TOOL_ROUNDS && !input.signal.aborted; round += 1) {
    const chunker = new ClauseChunker();
    const calls: ToolCall[] = [];
    let text = '';
    result.timings.llmSentAt ??= performance.now();
    for await (const event of input.llm.turn({ messages, tools: definitions }, input.signal)) {
      if (event.type === 'token') {
        result.timings.firstTokenAt ??= performance.now();
        text += event.text;
        for (const clause of chunker.push(event.text)) speaker.say(clause, round);
      } else if (event.type === 'tool_call') {
        calls.push(event.call);
      }
    }
    for (const clause of chunker.flush()) speaker.say(clause, round);
    const assistant = { role: 'assistant' as const, content: text.trim(), ...(calls.length && { toolCalls: calls }) };
    const thisRound: TurnRound = { assistant, toolResults: [] };
    result.rounds.push(thisRound);
    messages.push(assistant);
    if (calls.length === 0 || input.signal.aborted) break;
    for (const call of calls) {
      const content = await runTool(call, input, result);
      const toolMessage: ChatMessage = { role: 'tool', toolCallId: call.id, content };
      messages.push(toolMessage);
      thisRound.toolResults.push(toolMessage);
    }
    // end_call ends the reply once what was said so far has been synthesised; the model gets no further round.
    if (result.endCall) break;
  }
  await speaker.finished();
  return result;
}

async function runTool(call: ToolCall, input: AgentTurnInput, result: AgentTurnResult): Promise<string> {
  const atMs = input.now();
  if (call.name === END_CALL_TOOL.name) {
    result.endCall = true;
    result.tools.push({
      name: call.name,
      arguments: call.arguments,
      ok: true,
      result: 'ending the call',
      durationMs: 0,
      atMs,
    });
    return 'The call will end after your last words.';
  }
  // The call's own tools (knowledge and product search) first; then the agent's webhook tools.
  const builtin = input.builtins?.find((t) => t.definition.name === call.name);
  if (builtin) {
    const outcome = await builtin.run(call.arguments, input.signal);
    result.tools.push({
      name: call.name,
      arguments: call.arguments,
      ok: outcome.ok,
      result: outcome.content,
      durationMs: outcome.durationMs,
      atMs,
    });
    return outcome.content;
  }
  const { content, record } = await runWebhookToolCall(call, input.tools, input.signal, atMs);
  result.tools.push(record);
  return content;
}

/**
 * Synthesises clauses concurrently and queues their audio in order. Each clause is followed by a mark named after
 * its tag, so the session learns when it has been heard.
 */
class ClauseSpeaker {
  readonly #input: AgentTurnInput;
  readonly #result: AgentTurnResult;
  #chain: Promise<void> = Promise.resolve();
  #failure: unknown;

  constructor(input: AgentTurnInput, result: AgentTurnResult) {
    this.#input = input;
    this.#result = result;
  }

  say(text: string, round: number): void {
    if (this.#input.signal.aborted) return;
    const clause: SpokenClause = { tag: `t${this.#input.turn}c${this.#result.clauses.length}`, round, text, frames: 0 };
    this.#result.clauses.push(clause);
    this.#result.timings.firstClauseAt ??= performance.now();
    // Synthesis starts now; playback waits for the clause before it.
    const audio = this.#input.tts.say(text, this.#input.voice, this.#input.signal);
    const previous = this.#chain;
    this.#chain = (async () => {
      await previous;
      if (this.#failure !== undefined) return;
      const framer = new Framer();
      try {
        for await (const piece of audio) {
          if (this.#input.signal.aborted) return;
          for (const frame of framer.push(piece)) await this.#queue(clause, frame);
        }
        const tail = framer.flush();
        if (tail && !this.#input.signal.aborted) await this.#queue(clause, tail);
        if (!this.#input.signal.aborted) this.#input.outbound.mark(clause.tag);
      } catch (error) {
        if (!this.#input.signal.aborted) this.#failure = error;
      }
    })();
  }

  async finished(): Promise<void> {
    await this.#chain;
    if (this.#failure !== undefined) throw this.#failure;
  }

  async #queue(clause: SpokenClause, frame: Int16Array): Promise<void> {
    this.#result.timings.firstAudioAt ??= performance.now();
    await this.#input.outbound.enqueue(frame, clause.tag, this.#input.speech, this.#input.signal);
    clause.frames += 1;
  }
}
