/**
 * Function tools an agent calls during a conversation: each is a webhook of the customer's (spec: functionTools,
 * at most 5 per agent). The model's arguments go out as JSON; the answer comes back to the model as text. A failure
 * is never a crash: the model gets a short explanation it can put into words for the caller.
 */
import type { ToolDefinition } from '../providers/llm-provider.ts';

export interface WebhookTool {
  /** Tool key: the name the model calls. */
  key: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters?: Record<string, unknown>;
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  /** Decrypted bearer token, sent as `Authorization: Bearer …`. */
  bearerToken?: string;
  /** Per-call timeout, ms. */
  timeoutMs?: number;
}

/** A webhook that has not answered in 8 s is not answering in time for a live call. */
export const DEFAULT_TOOL_TIMEOUT_MS = 8_000;
/** The most a tool's answer may add to the model's context; more costs latency and money for no benefit. */
export const MAX_TOOL_RESULT_CHARS = 4_000;

export function toolDefinition(tool: WebhookTool): ToolDefinition {
  return {
    name: tool.key,
    description: tool.description,
    parameters: tool.parameters ?? { type: 'object', properties: {} },
  };
}

export interface ToolOutcome {
  ok: boolean;
  /** What the model reads. */
  content: string;
  /** HTTP status when the webhook answered. */
  status?: number;
  durationMs: number;
}

/** Calls the webhook with the model's arguments (JSON text, possibly malformed). */
export async function callWebhookTool(
  tool: WebhookTool,
  argumentsJson: string,
  signal: AbortSignal,
): Promise<ToolOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let args: unknown;
  try {
    args = argumentsJson.trim() ? JSON.parse(argumentsJson) : {};
  } catch {
    return {
      ok: false,
      content: 'The tool was called with arguments that are not valid JSON; nothing was done.',
      durationMs: elapsed(),
    };
  }
  const method = tool.method ?? 'POST';
  const url = new URL(tool.url);
  const headers: Record<string, string> = { accept: 'application/json, text/plain;q=0.9', ...tool.headers };
  if (tool.bearerToken) headers.authorization = `Bearer ${tool.bearerToken}`;
  let body: string | undefined;
  if (method === 'GET' || method === 'DELETE') {
    for (const [name, value] of Object.entries((args ?? {}) as Record<string, unknown>)) {
      url.searchParams.set(name, typeof value === 'string' ? value : JSON.stringify(value));
    }
  } else {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(args ?? {});
  }
  const timeout = AbortSignal.timeout(tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS);
  try {
    const response = await fetch(url, { method, headers, body, signal: AbortSignal.any([signal, timeout]) });
    const text = (await response.text()).slice(0, MAX_TOOL_RESULT_CHARS);
    if (!response.ok) {
      return {
        ok: false,
        status: response.status,
        content: `The tool failed with HTTP ${response.status}: ${text || 'no details'}`,
        durationMs: elapsed(),
      };
    }
    return { ok: true, status: response.status, content: text || 'Done.', durationMs: elapsed() };
  } catch (error) {
    if (signal.aborted) throw error;
    const timedOut = timeout.aborted;
    return {
      ok: false,
      content: timedOut
        ? 'The tool did not answer in time; nothing is known about the result.'
        : 'The tool could not be reached.',
      durationMs: elapsed(),
    };
  }
}
