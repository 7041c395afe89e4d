/**
 * The LLM worker kind: each stream runs a call's turns one request at a time on an LLM provider, streaming tokens
 * and tool calls back. A `cancel` (barge-in) aborts that request's HTTP call at once.
 */
import type { Static } from '@sinclair/typebox';
import { codecs, type LlmOpenOptions } from '../../protocol/index.ts';
import type { LlmProvider, LlmRequest } from '../../providers/llm-provider.ts';
import { providerRegistry, wireError } from '../provider-registry.ts';
import type { StreamContext, StreamHandler, WorkerKindHandler } from '../worker-host.ts';

export function llmWorker(providers: readonly LlmProvider[], defaultProvider?: string): WorkerKindHandler {
  const registry = providerRegistry(providers, defaultProvider);
  return {
    kind: 'llm',
    providers: registry.names,
    open(request, context) {
      const options = request.options as Static<typeof LlmOpenOptions>;
      return llmStream(registry.pick(options.provider), options.model, context);
    },
  };
}

function llmStream(provider: LlmProvider, model: string | undefined, context: StreamContext): StreamHandler {
  const running = new Map<number, AbortController>();

  const run = async (requestId: number, request: LlmRequest) => {
    const abort = new AbortController();
    running.set(requestId, abort);
    const onStreamClosed = () => abort.abort();
    context.signal.addEventListener('abort', onStreamClosed, { once: true });
    try {
      for await (const event of provider.stream({ ...request, model: request.model ?? model }, abort.signal)) {
        if (abort.signal.aborted) break;
        context.send(codecs.llmOut.encode({ ...event, requestId }));
      }
    } catch (error) {
      if (!abort.signal.aborted) context.send(codecs.llmOut.encode({ type: 'error', requestId, ...wireError(error) }));
    } finally {
      context.signal.removeEventListener('abort', onStreamClosed);
      running.delete(requestId);
    }
  };

  return {
    receive(payload) {
      const message = codecs.llmIn.decode(payload);
      switch (message.type) {
        case 'turn':
          void run(message.requestId, message.request as LlmRequest);
          break;
        case 'cancel':
          running.get(message.requestId)?.abort();
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
      for (const abort of running.values()) abort.abort();
      running.clear();
    },
  };
}
