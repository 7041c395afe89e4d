/**
 * A local contract fake of an OpenAI-compatible API (docs/architecture.md §7.8): chat completions, audio transcriptions,
 * audio speech and embeddings on 127.0.0.1 at a free port. It authenticates like OpenAI (`Authorization: Bearer <key>`, 401 with
 * OpenAI's error body otherwise) unless started without a key, like a local llama.cpp or vLLM server.
 *
 *   const openai = await startFakeOpenAi({ apiKey: 'sk-test' });
 *   openai.chat.enqueue({ tokens: ['Hel', 'lo.'] });
 *   new OpenAiCompatLlm({ baseUrl: openai.baseUrl, apiKey: 'sk-test', model: 'gpt-4o-mini' });
 *   …
 *   await openai.close();
 */
import { FakeChatEndpoint, openAiError } from './fake-openai-chat.ts';
import { FakeSpeechEndpoint, FakeTranscriptionsEndpoint } from './fake-openai-audio.ts';
import { FakeEmbeddingsEndpoint } from './fake-openai-embeddings.ts';
import { readBody, sendJson, startHttp } from './http-kit.ts';

export interface FakeOpenAiOptions {
  /** The key clients must send; undefined accepts requests without any (a local server). */
  apiKey?: string;
  /** Model ids that exist for chat; undefined accepts any. */
  models?: readonly string[];
}

export interface FakeOpenAi {
  /** `http://127.0.0.1:<port>/v1`, what a client's `baseUrl` should be. */
  baseUrl: string;
  chat: FakeChatEndpoint;
  transcriptions: FakeTranscriptionsEndpoint;
  speech: FakeSpeechEndpoint;
  embeddings: FakeEmbeddingsEndpoint;
  /** Requests refused for authentication, for asserting that a key was (not) sent. */
  unauthorized: number;
  close(): Promise<void>;
}

export async function startFakeOpenAi(options: FakeOpenAiOptions = {}): Promise<FakeOpenAi> {
  const chat = new FakeChatEndpoint(options.models);
  const transcriptions = new FakeTranscriptionsEndpoint();
  const speech = new FakeSpeechEndpoint();
  const embeddings = new FakeEmbeddingsEndpoint();
  const routes = {
    '/v1/embeddings': embeddings,
    '/v1/chat/completions': chat,
    '/v1/audio/transcriptions': transcriptions,
    '/v1/audio/speech': speech,
  } as const;
  const fake = { unauthorized: 0 } as FakeOpenAi;

  const running = await startHttp(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const endpoint = routes[path as keyof typeof routes];
    if (endpoint === undefined || req.method !== 'POST') {
      return sendJson(res, 404, {
        error: {
          message: `Invalid URL (${req.method} ${path})`,
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      });
    }
    if (options.apiKey !== undefined) {
      const auth = req.headers.authorization;
      if (auth === undefined || !auth.startsWith('Bearer ')) {
        fake.unauthorized += 1;
        return openAiError(
          res,
          401,
          "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
          null,
        );
      }
      if (auth.slice('Bearer '.length) !== options.apiKey) {
        fake.unauthorized += 1;
        return openAiError(
          res,
          401,
          'Incorrect API key provided: sk-****. You can find your API key at https://platform.openai.com/account/api-keys.',
          null,
          'invalid_api_key',
        );
      }
    }
    await endpoint.handle(req, res, await readBody(req));
  });

  return Object.assign(fake, {
    baseUrl: `${running.origin}/v1`,
    chat,
    transcriptions,
    speech,
    embeddings,
    close: running.close,
  });
}
