import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage, LlmEvent, ToolDefinition } from '../../src/providers/llm-provider.ts';
import { OpenAiCompatLlm } from '../../src/providers/openai-compat/openai-llm.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai-server.ts';
import { collect, within } from './support.ts';

const KEY = 'sk-test-key';
const LOOKUP: ToolDefinition = {
  name: 'lookup_order',
  description: 'Finds an order by its number',
  parameters: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] },
};
const hello: ChatMessage[] = [
  { role: 'system', content: 'You are a helpful phone agent.' },
  { role: 'user', content: 'Hello?' },
];

let openai: FakeOpenAi;
let llm: OpenAiCompatLlm;

beforeAll(async () => {
  openai = await startFakeOpenAi({ apiKey: KEY, models: ['gpt-4o-mini', 'other-model'] });
  llm = new OpenAiCompatLlm({ baseUrl: openai.baseUrl, apiKey: KEY, model: 'gpt-4o-mini' });
});
afterAll(() => openai.close());

const text = (events: LlmEvent[]): string => events.flatMap((e) => (e.type === 'token' ? [e.text] : [])).join('');

describe('OpenAiCompatLlm streaming', () => {
  it('streams tokens in order, then done with the finish reason and the usage chunk', async () => {
    openai.chat.enqueue({
      tokens: ['Hi', ' there', '!'],
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
    });
    const events = await collect(llm.stream({ messages: hello }, new AbortController().signal));
    expect(events).toEqual([
      { type: 'token', text: 'Hi' },
      { type: 'token', text: ' there' },
      { type: 'token', text: '!' },
      { type: 'done', finishReason: 'stop', usage: { promptTokens: 12, completionTokens: 3, totalTokens: 15 } },
    ]);
  });

  it('sends the documented request: bearer key, model, messages, stream with usage, tools and sampling', async () => {
    openai.chat.enqueue({ tokens: ['ok'] });
    const before = openai.chat.requests.length;
    await collect(
      llm.stream(
        { messages: hello, tools: [LOOKUP], temperature: 0.3, maxTokens: 200, model: 'other-model' },
        new AbortController().signal,
      ),
    );
    const request = openai.chat.requests[before];
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.body).toEqual({
      model: 'other-model',
      messages: hello,
      stream: true,
      stream_options: { include_usage: true },
      tools: [{ type: 'function', function: LOOKUP }],
      temperature: 0.3,
      max_tokens: 200,
    });
  });

  it('names itself by host and model', () => {
    expect(llm.name).toBe(`${new URL(openai.baseUrl).host}/gpt-4o-mini`);
  });

  it('assembles a tool call whose name and arguments arrive over several chunks, and sends the result back', async () => {
    openai.chat.enqueue({
      tokens: ['Let me check.'],
      toolCalls: [
        { id: 'call_abc', name: 'lookup_order', arguments: '{"order":"A-1042"}', argumentPieces: 5, splitName: true },
      ],
      usage: { prompt_tokens: 40, completion_tokens: 9, total_tokens: 49 },
    });
    const first = await collect(llm.stream({ messages: hello, tools: [LOOKUP] }, new AbortController().signal));
    expect(first).toEqual([
      { type: 'token', text: 'Let me check.' },
      { type: 'tool_call', call: { id: 'call_abc', name: 'lookup_order', arguments: '{"order":"A-1042"}' } },
      { type: 'done', finishReason: 'tool_calls', usage: { promptTokens: 40, completionTokens: 9, totalTokens: 49 } },
    ]);

    const call = first.find((e) => e.type === 'tool_call')?.call;
    if (call === undefined) throw new Error('no tool call');
    openai.chat.enqueue({ tokens: ['It shipped yesterday.'] });
    const before = openai.chat.requests.length;
    const second = await collect(
      llm.stream(
        {
          messages: [
            ...hello,
            { role: 'assistant', content: 'Let me check.', toolCalls: [call] },
            { role: 'tool', toolCallId: call.id, content: '{"status":"shipped"}' },
          ],
          tools: [LOOKUP],
        },
        new AbortController().signal,
      ),
    );
    expect(text(second)).toBe('It shipped yesterday.');
    expect((openai.chat.requests[before]?.body.messages as unknown[]).slice(2)).toEqual([
      {
        role: 'assistant',
        content: 'Let me check.',
        tool_calls: [
          { id: 'call_abc', type: 'function', function: { name: 'lookup_order', arguments: '{"order":"A-1042"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_abc', content: '{"status":"shipped"}' },
    ]);
  });

  it('keeps parallel tool calls apart and sends null content for a turn that only called tools', async () => {
    openai.chat.enqueue({
      toolCalls: [
        { id: 'call_1', name: 'lookup_order', arguments: '{"order":"A"}' },
        { id: 'call_2', name: 'lookup_order', arguments: '{"order":"B"}', argumentPieces: 7 },
      ],
    });
    const events = await collect(llm.stream({ messages: hello, tools: [LOOKUP] }, new AbortController().signal));
    const calls = events.flatMap((e) => (e.type === 'tool_call' ? [e.call] : []));
    expect(calls.map((c) => [c.id, c.arguments])).toEqual([
      ['call_1', '{"order":"A"}'],
      ['call_2', '{"order":"B"}'],
    ]);

    openai.chat.enqueue({ tokens: ['Both shipped.'] });
    const before = openai.chat.requests.length;
    await collect(
      llm.stream(
        {
          messages: [
            ...hello,
            { role: 'assistant', content: '', toolCalls: calls },
            ...calls.map((c): ChatMessage => ({ role: 'tool', toolCallId: c.id, content: 'shipped' })),
          ],
        },
        new AbortController().signal,
      ),
    );
    expect((openai.chat.requests[before]?.body.messages as { content: unknown }[])[2]?.content).toBeNull();
  });

  it('decodes characters and lines that chunk boundaries split', async () => {
    const body = Buffer.from(
      [
        'data: {"choices":[{"index":0,"delta":{"content":"Grüß "},"finish_reason":null}]}\n\n',
        'data: {"choices":[{"index":0,"delta":{"content":"dich 👋"},"finish_reason":null}]}\r\n\r\n',
        'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
      ].join(''),
    );
    const emoji = body.indexOf(Buffer.from('👋'));
    const u = body.indexOf(Buffer.from('ü'));
    const crlf = body.indexOf(Buffer.from('\r\n'));
    const cuts = [0, 30, u + 1, emoji + 1, emoji + 3, crlf + 1, body.length].sort((a, b) => a - b);
    openai.chat.enqueue({ raw: cuts.slice(1).map((end, i) => body.subarray(cuts[i], end)), chunkDelayMs: 5 });
    const events = await collect(llm.stream({ messages: hello }, new AbortController().signal));
    expect(text(events)).toBe('Grüß dich 👋');
    expect(events.at(-1)).toEqual({ type: 'done', finishReason: 'stop' });
  });

  it('reports tool calls a server finished with `stop` as tool_calls', async () => {
    openai.chat.enqueue({ toolCalls: [{ id: 'c', name: 'lookup_order', arguments: '{}' }], finishReason: 'stop' });
    const events = await collect(llm.stream({ messages: hello, tools: [LOOKUP] }, new AbortController().signal));
    expect(events.at(-1)).toMatchObject({ type: 'done', finishReason: 'tool_calls' });
  });

  it('talks to a keyless local server without an Authorization header', async () => {
    const local = await startFakeOpenAi();
    try {
      local.chat.enqueue({ tokens: ['local'] });
      const keyless = new OpenAiCompatLlm({ baseUrl: `${local.baseUrl}/`, model: 'llama-3.1-8b', includeUsage: false });
      const events = await collect(keyless.stream({ messages: hello }, new AbortController().signal));
      expect(text(events)).toBe('local');
      expect(local.chat.requests[0]?.headers.authorization).toBeUndefined();
      expect(local.chat.requests[0]?.body.stream_options).toBeUndefined();
    } finally {
      await local.close();
    }
  });
});

describe('OpenAiCompatLlm cancellation', () => {
  it('ends the iterable without an error when aborted mid-stream, and closes the connection', async () => {
    openai.chat.enqueue({ tokens: Array.from({ length: 50 }, (_, i) => `t${i} `), chunkDelayMs: 20 });
    const controller = new AbortController();
    const before = openai.chat.requests.length;
    const received: LlmEvent[] = [];
    await within(
      (async () => {
        for await (const event of llm.stream({ messages: hello }, controller.signal)) {
          received.push(event);
          if (received.length === 3) controller.abort();
        }
      })(),
      'the aborted stream to end',
    );
    expect(received).toHaveLength(3);
    expect(await within(openai.chat.requests[before]!.outcome, 'the fake to see the client leave')).toEqual({
      clientClosedEarly: true,
    });
  });

  it('closes the connection when the consumer stops reading early', async () => {
    openai.chat.enqueue({ tokens: Array.from({ length: 50 }, (_, i) => `t${i} `), chunkDelayMs: 20 });
    const before = openai.chat.requests.length;
    for await (const event of llm.stream({ messages: hello }, new AbortController().signal)) {
      expect(event.type).toBe('token');
      break;
    }
    expect(await within(openai.chat.requests[before]!.outcome, 'the fake to see the client leave')).toEqual({
      clientClosedEarly: true,
    });
  });

  it('sends nothing for an already aborted signal', async () => {
    const before = openai.chat.requests.length;
    expect(await collect(llm.stream({ messages: hello }, AbortSignal.abort()))).toEqual([]);
    expect(openai.chat.requests.length).toBe(before);
  });
});
