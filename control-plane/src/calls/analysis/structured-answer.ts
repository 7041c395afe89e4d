/**
 * Asks the installation's language model (the LLM workers over the bus, `LlmClient`) for one JSON object that fits a
 * TypeBox schema. The schema is offered as the parameters of a single tool the model is told to call; a model that
 * writes the JSON as text instead is read too. The answer is checked against the schema as a whole: an answer that
 * does not fit is sent back once with its problems listed, and if the second one does not fit either the ask fails
 * (`ai_model_failed`). Nothing half-valid ever comes out of here.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { Bus } from '@parley/engine/bus';
import { type ChatMessage } from '@parley/engine/clients';
import { ApiError } from '../../errors.ts';
import { isNoWorker, noLanguageModel, openLanguageModel } from '../../language-model/open-llm.ts';

/**
 * How long an ask waits for an LLM worker to take its stream, ms. A running worker answers in milliseconds; the
 * client's own deadline (8 s) is sized for a call riding out a failover, while an analysis can simply come back later.
 */
export const LLM_WORKER_WAIT_MS = 5_000;
/** Answers per ask: the first, and one more after the model is told what was wrong with it. */
export const ANSWER_ATTEMPTS = 2;
/** Problems listed back to the model: enough to fix an answer, short enough not to drown the transcript. */
const PROBLEMS_SHOWN = 8;

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface StructuredRequest<T extends TSchema> {
  /** Goes into the LLM workers' logs as the stream's call id. */
  traceId: string;
  system: string;
  user: string;
  schema: T;
  toolName: string;
  toolDescription: string;
  maxTokens: number;
  temperature: number;
  /** Adjusts an answer before it is checked (e.g. the case of a choice); must not invent values. */
  normalise?: (value: unknown) => unknown;
}

export interface StructuredAnswer<T> {
  value: T;
  usage: TokenUsage;
}

const compiled = new WeakMap<TSchema, ReturnType<typeof TypeCompiler.Compile>>();

function checker(schema: TSchema) {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

/** Problems of a value against a schema, as `path: message` lines; empty when it fits. */
export function schemaProblems(schema: TSchema, value: unknown): string[] {
  const check = checker(schema);
  if (check.Check(value)) return [];
  return [...check.Errors(value)].slice(0, PROBLEMS_SHOWN).map((e) => `${e.path || '/'}: ${e.message}`);
}

export async function askForJson<T extends TSchema>(
  bus: Bus,
  request: StructuredRequest<T>,
  signal: AbortSignal,
): Promise<StructuredAnswer<Static<T>>> {
  const client = await openLanguageModel(bus, request.traceId, LLM_WORKER_WAIT_MS);
  const usage: TokenUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  const messages: ChatMessage[] = [
    { role: 'system', content: request.system },
    { role: 'user', content: request.user },
  ];
  const tool = {
    name: request.toolName,
    description: request.toolDescription,
    parameters: request.schema as unknown as Record<string, unknown>,
  };
  let problems: string[] = [];
  try {
    for (let attempt = 1; attempt <= ANSWER_ATTEMPTS; attempt += 1) {
      let text = '';
      let finishReason = 'stop';
      const calls: { id: string; name: string; arguments: string }[] = [];
      try {
        for await (const event of client.turn(
          { messages, tools: [tool], temperature: request.temperature, maxTokens: request.maxTokens },
          signal,
        )) {
          if (event.type === 'token') text += event.text;
          else if (event.type === 'tool_call') calls.push(event.call);
          else {
            finishReason = event.finishReason;
            if (event.usage) {
              usage.prompt_tokens += event.usage.promptTokens;
              usage.completion_tokens += event.usage.completionTokens;
              usage.total_tokens += event.usage.totalTokens;
            }
          }
        }
      } catch (error) {
        throw modelFailure(error);
      }
      signal.throwIfAborted();
      const call = calls.find((c) => c.name === request.toolName) ?? calls[0];
      const raw = call ? call.arguments : text;
      problems = finishReason === 'length' ? ['the answer was cut off at the length limit'] : [];
      let value: unknown;
      if (!problems.length) {
        try {
          value = request.normalise ? request.normalise(parseJson(raw)) : parseJson(raw);
          problems = schemaProblems(request.schema, value);
        } catch {
          problems = [
            call
              ? 'the tool arguments are not valid JSON'
              : `no ${request.toolName} call and no JSON object in the answer`,
          ];
        }
      }
      if (!problems.length) return { value: value as Static<T>, usage };
      const feedback =
        `That answer was rejected: ${problems.join('; ')}. Call ${request.toolName} again, once, with arguments that ` +
        'match its JSON schema exactly (every required key, no other keys, values of the stated types).';
      if (call) {
        messages.push(
          { role: 'assistant', content: text, toolCalls: [call] },
          { role: 'tool', toolCallId: call.id, content: feedback },
        );
      } else {
        messages.push({ role: 'assistant', content: text || '(no answer)' }, { role: 'user', content: feedback });
      }
    }
  } finally {
    client.close();
  }
  throw new ApiError(
    'ai_model_failed',
    `The language model's answer did not fit the analysis schema after ${ANSWER_ATTEMPTS} tries: ${problems.join('; ')}`,
  );
}

/** JSON from tool arguments or an answer's text (a code fence, or prose around one object, is tolerated). */
function parseJson(raw: string): unknown {
  const trimmed = raw.trim();
  const fenced = /^```(?:json)?\s*\n([\s\S]*?)\n```$/i.exec(trimmed);
  const body = fenced ? fenced[1]! : trimmed;
  try {
    return JSON.parse(body);
  } catch (error) {
    const start = body.indexOf('{');
    const end = body.lastIndexOf('}');
    if (start >= 0 && end > start) return JSON.parse(body.slice(start, end + 1));
    throw error;
  }
}

function modelFailure(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (isNoWorker(error)) return noLanguageModel(LLM_WORKER_WAIT_MS, error);
  return new ApiError(
    'ai_model_failed',
    `The language model failed: ${error instanceof Error ? error.message : String(error)}`,
    { cause: error },
  );
}
