import { createServer, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { LlmEvent, LlmRequest } from '../providers/llm-provider.ts';
import { MAX_TOOL_ROUNDS } from './tool-runner.ts';
import { runTextTurn, type TextModel } from './text-turn.ts';
import { buildSystemPrompt } from './system-prompt.ts';

/** A model that answers each request from a script and keeps what it was asked. */
function scriptedModel(rounds: LlmEvent[][]): TextModel & { requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  return {
    requests,
    async *turn(request: LlmRequest) {
      requests.push(structuredClone(request));
      yield* rounds[requests.length - 1] ?? [{ type: 'token', text: 'again' }];
    },
  };
}

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

describe('runTextTurn', () => {
  it('streams tokens, runs a webhook tool between rounds and keeps the rounds apart for the reader', async () => {
    const hits: string[] = [];
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        hits.push(body);
        res.end('{"open":"9 to 5"}');
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const model = scriptedModel([
      [
        { type: 'token', text: 'Let me check.' },
        { type: 'tool_call', call: { id: 'c1', name: 'hours', arguments: '{"day":"monday"}' } },
        { type: 'done', finishReason: 'tool_calls', usage: { promptTokens: 10, completionTokens: 3, totalTokens: 13 } },
      ],
      [
        { type: 'token', text: 'We are open' },
        { type: 'token', text: ' 9 to 5.' },
        { type: 'done', finishReason: 'stop', usage: { promptTokens: 20, completionTokens: 5, totalTokens: 25 } },
      ],
    ]);
    const streamed: string[] = [];
    const result = await runTextTurn({
      messages: [{ role: 'user', content: 'When are you open?' }],
      tools: [{ key: 'hours', description: 'Opening hours', url: `http://127.0.0.1:${port}/hours` }],
      model,
      signal: new AbortController().signal,
      onToken: (t) => streamed.push(t),
    });
    expect(streamed).toEqual(['Let me check.', ' ', 'We are open', ' 9 to 5.']);
    expect(result.text).toBe('Let me check. We are open 9 to 5.');
    expect(hits).toEqual(['{"day":"monday"}']);
    expect(result.tools).toMatchObject([{ name: 'hours', ok: true, result: '{"open":"9 to 5"}' }]);
    expect(result.usage).toEqual({ promptTokens: 30, completionTokens: 8 });
    // The second round saw the tool's answer.
    expect(model.requests[1]!.messages.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'c1',
      content: '{"open":"9 to 5"}',
    });
    expect(result.messages.map((m) => m.role)).toEqual(['assistant', 'tool', 'assistant']);
  });

  it('answers a host tool itself and cuts a loop of tools off after MAX_TOOL_ROUNDS', async () => {
    const loop: LlmEvent[] = [
      { type: 'tool_call', call: { id: 'x', name: 'request_callback', arguments: '{}' } },
      { type: 'done', finishReason: 'tool_calls' },
    ];
    const model = scriptedModel(Array.from({ length: MAX_TOOL_ROUNDS + 2 }, () => loop));
    let runs = 0;
    const result = await runTextTurn({
      messages: [{ role: 'user', content: 'call me' }],
      tools: [],
      hostTools: [
        {
          definition: { name: 'request_callback', description: 'callback', parameters: { type: 'object' } },
          run: async () => {
            runs += 1;
            return { ok: true, content: 'scheduled' };
          },
        },
      ],
      model,
      signal: new AbortController().signal,
    });
    expect(model.requests).toHaveLength(MAX_TOOL_ROUNDS);
    expect(runs).toBe(MAX_TOOL_ROUNDS);
    expect(model.requests[0]!.tools?.map((t) => t.name)).toEqual(['request_callback']);
    expect(result.text).toBe('');
  });

  it('writes chat rules, not voice rules, for a chat agent', () => {
    const chat = buildSystemPrompt({ agentIdentity: 'Ava of Acme' }, { participantName: 'Sam' }, 'chat');
    expect(chat).toContain('## How to write');
    expect(chat).toContain('What we know about this conversation');
    expect(chat).not.toContain('spoken aloud');
    expect(buildSystemPrompt({ agentIdentity: 'Ava' }, {})).toContain('spoken aloud');
  });
});
