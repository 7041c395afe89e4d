/**
 * What every answer must be, whatever was asked: never a 5xx; a refusal in the envelope `{ success: false, message,
 * code }` with `x-request-id`; nothing of the server's insides (stack frames, file paths); and in bounded time.
 * Returns the problems found, empty when the answer is fine.
 */
import path from 'node:path';
import { voiceCarriers } from '../../src/carriers/voice-carriers.ts';

/** Every voice carrier's refusal documents: what its webhooks may answer instead of the envelope. */
const CARRIER_REFUSALS = Object.values(voiceCarriers).map((carrier) => carrier.refusal(''));

export interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
  elapsedMs: number;
}

export const ANSWER_TIME_LIMIT_MS = 5000;

const REPO_ROOT = path.resolve(import.meta.dirname, '../../..');
const STACK_FRAME = /\n\s+at .+[(\s][^()\s]+:\d+:\d+\)?/;
const SERVER_PATHS = [REPO_ROOT, 'node_modules/', '/src/', '.ts:'];

export interface AnswerRules {
  /** The door speaks a protocol of its own for some refusals (MCP: JSON-RPC errors); those need no envelope. */
  ownRefusals?: (answer: Answer) => boolean;
}

export function problemsOf(answer: Answer, rules: AnswerRules = {}): string[] {
  const problems: string[] = [];
  if (answer.statusCode >= 500) problems.push(`answered ${answer.statusCode}`);
  if (answer.elapsedMs > ANSWER_TIME_LIMIT_MS) problems.push(`took ${Math.round(answer.elapsedMs)} ms`);
  if (STACK_FRAME.test(answer.body)) problems.push('shows a stack trace');
  const leaked = SERVER_PATHS.find((p) => answer.body.includes(p));
  if (leaked) problems.push(`shows a server path (${leaked})`);
  if (answer.statusCode >= 400) {
    if (typeof answer.headers['x-request-id'] !== 'string') problems.push('has no x-request-id');
    if (rules.ownRefusals?.(answer)) return problems;
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      problems.push(`is not JSON: ${answer.body.slice(0, 120)}`);
    }
    if (body !== undefined && !isEnvelope(body)) {
      problems.push(`is outside the envelope: ${answer.body.slice(0, 200)}`);
    }
  }
  return problems;
}

function isEnvelope(body: unknown): boolean {
  const b = body as { success?: unknown; message?: unknown; code?: unknown };
  return b?.success === false && typeof b.message === 'string' && typeof b.code === 'string';
}

/** A JSON-RPC 2.0 error object, as the MCP transport refuses what it cannot take. */
export function isJsonRpcError(answer: Answer): boolean {
  try {
    const b = JSON.parse(answer.body) as { jsonrpc?: unknown; error?: { code?: unknown; message?: unknown } };
    return b?.jsonrpc === '2.0' && typeof b.error?.code === 'number' && typeof b.error.message === 'string';
  } catch {
    return false;
  }
}

/** A carrier's voice document, as a webhook refuses a call the carrier must hang up on (voice-carrier.ts `refusal`). */
export function isCarrierDocument(answer: Answer): boolean {
  return CARRIER_REFUSALS.some(
    (document) =>
      String(answer.headers['content-type']).startsWith(document.contentType.split(';')[0]!) &&
      (document.body.startsWith('<') ? answer.body.trimStart().startsWith('<') : answer.body === document.body),
  );
}

/** MCP sign-in's refusals: OAuth's `{ error, error_description }` from its endpoints, an HTML page from its pages. */
export function isOAuthRefusal(answer: Answer): boolean {
  if (String(answer.headers['content-type']).startsWith('text/html')) return answer.body.startsWith('<!doctype html>');
  try {
    const b = JSON.parse(answer.body) as { error?: unknown; error_description?: unknown };
    return typeof b?.error === 'string' && typeof b.error_description === 'string';
  } catch {
    return false;
  }
}
