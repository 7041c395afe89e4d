import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMessage, LlmEvent } from '../../src/providers/llm-provider.ts';
import { OpenAiCompatLlm } from '../../src/providers/openai-compat/openai-llm.ts';
import { ProviderError } from '../../src/providers/provider-error.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../fakes/fake-openai-server.ts';
import { collectFailure, expectProviderError, within } from './support.ts';

const KEY = 'sk-test-key';
const hello: ChatMessage[] = [{ role: 'user', content: 'Hello?' }];
/** Deadlines short enough to keep the suite fast, long enough to stay clear of scheduling noise. */
const SHORT = { firstOutputMs: 300, stallMs: 300, totalMs: 2_000 };

let openai: FakeOpenAi;
let llm: OpenAiCompatLlm;

beforeAll(async () => {
  openai = await startFakeOpenAi({ apiKey: KEY, models: ['gpt-4o-mini'] });
  llm = new OpenAiCompatLlm({ baseUrl: openai.baseUrl, apiKey: KEY, model: 'gpt-4o-mini', timeouts: SHORT });
});
afterAll(() => openai.close());

const run = (provider = llm) => collectFailure(provider.stream({ messages: hello }, new AbortController().signal));

describe('OpenAiCompatLlm errors', () => {
  it('maps a wrong key to unauthorized (not retryable), with the status and OpenAI’s message', async () => {
    const wrongKey = new OpenAiCompatLlm({ baseUrl: openai.baseUrl, apiKey: 'sk-wrong', model: 'gpt-4o-mini' });
    const { error } = await run(wrongKey);
    expectProviderError(error, 'unauthorized', 401);
    expect((error as ProviderError).retryable).toBe(false);
    expect((error as ProviderError).message).toContain('Incorrect API key');
  });

  it('maps a missing key to unauthorized', async () => {
    const { error } = await run(new OpenAiCompatLlm({ baseUrl: openai.baseUrl, model: 'gpt-4o-mini' }));
    expectProviderError(error, 'unauthorized', 401);
  });

  it('maps 429 to rate_limited with the Retry-After delay', async () => {
    openai.chat.enqueue({ error: { status: 429, type: 'requests', code: 'rate_limit_exceeded', retryAfter: '2' } });
    const { error } = await run();
    expectProviderError(error, 'rate_limited', 429);
    expect((error as ProviderError).retryAfterMs).toBe(2_000);
    expect((error as ProviderError).retryable).toBe(true);
  });

  it('maps 500 and 503 to upstream_failed (retryable)', async () => {
    for (const status of [500, 503]) {
      openai.chat.enqueue({ error: { status } });
      const { error } = await run();
      expectProviderError(error, 'upstream_failed', status);
      expect((error as ProviderError).retryable).toBe(true);
    }
  });

  it('maps an unknown model (404) to invalid_request', async () => {
    const unknown = new OpenAiCompatLlm({ baseUrl: openai.baseUrl, apiKey: KEY, model: 'gpt-nonexistent' });
    const { error } = await run(unknown);
    expectProviderError(error, 'invalid_request', 404);
  });

  it('maps a request OpenAI refuses (a tool result with no tool call) to invalid_request', async () => {
    const { error } = await collectFailure(
      llm.stream(
        { messages: [...hello, { role: 'tool', toolCallId: 'nope', content: 'x' }] },
        new AbortController().signal,
      ),
    );
    expectProviderError(error, 'invalid_request', 400);
  });

  it('fails with bad_response on an event that is not JSON, after the tokens before it', async () => {
    openai.chat.enqueue({
      raw: [
        'data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n',
        'data: {"choices":[{"index":0,"delta":{"content":\n\n',
      ],
    });
    const { items, error } = await run();
    expect(items).toEqual([{ type: 'token', text: 'Hi' }]);
    expectProviderError(error, 'bad_response');
  });

  it('fails with bad_response when a 200 body is not an event stream at all', async () => {
    openai.chat.enqueue({ raw: ['<html>proxy says hi</html>'] });
    expectProviderError((await run()).error, 'bad_response');
  });

  it('fails with bad_response when a tool call never gets a name', async () => {
    openai.chat.enqueue({
      raw: [
        'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","function":{"arguments":"{}"}}]},"finish_reason":null}]}\n\n',
        'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n',
      ],
    });
    expectProviderError((await run()).error, 'bad_response');
  });

  it('fails with upstream_failed when the connection drops mid-stream, after the tokens that came', async () => {
    // Paced, as a real stream is: bytes that arrive together with the hang-up are lost to any HTTP client.
    openai.chat.enqueue({ tokens: ['one ', 'two ', 'three ', 'four '], dropAfterChunks: 3, chunkDelayMs: 20 });
    const { items, error } = await run();
    expect(items).toEqual([
      { type: 'token', text: 'one ' },
      { type: 'token', text: 'two ' },
    ]);
    expectProviderError(error, 'upstream_failed');
  });

  it('fails with upstream_failed when the stream ends before the model finished', async () => {
    openai.chat.enqueue({
      raw: ['data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n'],
    });
    expectProviderError((await run()).error, 'upstream_failed');
  });

  it('accepts a finished stream without [DONE]', async () => {
    openai.chat.enqueue({ tokens: ['fine'], omitDone: true });
    const events: LlmEvent[] = [];
    for await (const event of llm.stream({ messages: hello }, new AbortController().signal)) events.push(event);
    expect(events.at(-1)).toMatchObject({ type: 'done', finishReason: 'stop' });
  });

  it('fails with upstream_failed on an error event sent after the 200', async () => {
    openai.chat.enqueue({ raw: ['data: {"error":{"message":"The server had an error","type":"server_error"}}\n\n'] });
    expectProviderError((await run()).error, 'upstream_failed');
  });
});

describe('OpenAiCompatLlm timeouts', () => {
  it('times out when no token arrives in time, even though the role chunk did', async () => {
    openai.chat.enqueue({ tokens: ['late'], stallAfterChunks: 1 });
    const before = openai.chat.requests.length;
    const started = Date.now();
    const { error } = await run();
    expectProviderError(error, 'upstream_timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(SHORT.firstOutputMs - 20);
    expect(await within(openai.chat.requests[before]!.outcome, 'the fake to see the client leave')).toEqual({
      clientClosedEarly: true,
    });
  });

  it('times out when the server is slow to answer at all', async () => {
    openai.chat.enqueue({ tokens: ['late'], headerDelayMs: 1_000 });
    expectProviderError((await run()).error, 'upstream_timeout');
  });

  it('times out when tokens stop flowing mid-answer, after the ones that came', async () => {
    openai.chat.enqueue({ tokens: ['a', 'b', 'c', 'd'], stallAfterChunks: 3 });
    const { items, error } = await run();
    expect(items).toEqual([
      { type: 'token', text: 'a' },
      { type: 'token', text: 'b' },
    ]);
    expectProviderError(error, 'upstream_timeout');
  });

  it('does not mistake a slow reader for a stalled server', async () => {
    openai.chat.enqueue({ tokens: ['a', 'b', 'c'] });
    const events: LlmEvent[] = [];
    for await (const event of llm.stream({ messages: hello }, new AbortController().signal)) {
      events.push(event);
      await sleep(SHORT.stallMs + 100);
    }
    expect(events.map((e) => e.type)).toEqual(['token', 'token', 'token', 'done']);
  });

  it('times out a whole answer that runs past the total limit, however steady', async () => {
    const patient = new OpenAiCompatLlm({
      baseUrl: openai.baseUrl,
      apiKey: KEY,
      model: 'gpt-4o-mini',
      timeouts: { firstOutputMs: 300, stallMs: 300, totalMs: 400 },
    });
    openai.chat.enqueue({ tokens: Array.from({ length: 40 }, () => 'x'), chunkDelayMs: 40 });
    const { items, error } = await run(patient);
    expect(items.length).toBeGreaterThan(2);
    expectProviderError(error, 'upstream_timeout');
  });

  it('fails with upstream_failed when nothing listens at the base URL', async () => {
    const gone = await startFakeOpenAi();
    const baseUrl = gone.baseUrl;
    await gone.close();
    const { error } = await run(new OpenAiCompatLlm({ baseUrl, model: 'm' }));
    expectProviderError(error, 'upstream_failed');
  });
});
