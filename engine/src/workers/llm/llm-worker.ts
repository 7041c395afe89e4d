/**
 * The LLM worker kind: each stream runs a call's turns one request at a time on an LLM provider, streaming tokens
 * and tool calls back. A `cancel` (barge-in) aborts that request's HTTP call at once.
 */
import type { Static } from '@sinclair/typebox';
import { codecs, type LlmOpenOptions } from '../../protocol/index.ts';
import type { LlmProvider, LlmRequest } from '../../providers/llm-provider.ts';
import { providerRegistry, wireError } from '../provider-registry.ts';
import { RequestRunner } from '../request-runner.ts';
import type { StreamContext, StreamHandler, WorkerKindHandler } from '../worker-host.ts';

export function llmWorker(providers: readonly LlmProvider[], defaultProvider?: string): WorkerKindHandler {
  const registry = providerRegistry(providers, defaultProvider);
  return {
    kind: 'llm',
    providers: registry.names,
    models: providers.map((provider) => provider.model ?? provider.name),
    open(request, context) {
      const options = request.options as Static<typeof LlmOpenOptions>;
      return llmStream(registry.pick(options.provider), options.model, context);
    },
  };
}

function llmStream(provider: LlmProvider, model: string | undefined, context: StreamContext): StreamHandler {
  const requests = new RequestRunner(context);

  const run = (requestId: number, request: LlmRequest) =>
    requests.run(
      requestId,
      async (signal) => {
        for await (const event of provider.stream({ ...request, model: request.model ?? model }, signal)) {
          if (signal.aborted) break;
          context.send(codecs.llmOut.encode({ ...event, requestId }));
        }
      },
      (error) => context.send(codecs.llmOut.encode({ type: 'error', requestId, ...wireError(error) })),
    );

  return {
    receive(payload) {
      const message = codecs.llmIn.decode(payload);
      switch (message.type) {
        case 'turn':
          run(message.requestId, message.request as LlmRequest);
          break;
        case 'cancel':
          requests.cancel(message.requestId);
          break;
        case 'end':
          context.send(codecs.llmOut.encode({ type: 'ended' }));
          context.finish();
          break;
        case 'ping':
          break;
      }
    },
    close() {
      requests.cancelAll();
    },
  };
}
