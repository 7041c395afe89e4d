/**
 * Providers that follow a script, standing in for a speech or language vendor where a test is about Parley's own
 * plumbing (worker streams, failover), not about a vendor's wire format. They implement the provider interfaces
 * exactly as the real providers do.
 */
import type { LlmEvent, LlmProvider, LlmRequest } from '../../src/providers/llm-provider.ts';
import type { SttEvent, SttOptions, SttProvider, SttStream } from '../../src/providers/stt-provider.ts';
import { Channel } from '../../src/streams/channel.ts';

/** Replies with the words of `reply`, one token each, after `gate` resolves (so a test can hold a turn open). */
export function scriptedLlm(reply: string, options: { name?: string; gate?: () => Promise<void>; tokenDelayMs?: number } = {}): LlmProvider & { requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  return {
    name: options.name ?? 'scripted-llm',
    requests,
    async *stream(request, signal): AsyncIterable<LlmEvent> {
      requests.push(request);
      await options.gate?.();
      for (const word of reply.split(' ')) {
        if (signal.aborted) return;
        if (options.tokenDelayMs) await new Promise((r) => setTimeout(r, options.tokenDelayMs));
        yield { type: 'token', text: `${word} ` };
      }
      yield { type: 'done', finishReason: 'stop' };
    },
  };
}

/** On each end of utterance, emits a final saying how many milliseconds of audio it heard in that utterance. */
export function countingStt(name = 'counting-stt'): SttProvider {
  return {
    name,
    open(_options: SttOptions, signal: AbortSignal): SttStream {
      const events = new Channel<SttEvent>(64, 'fail');
      let samples = 0;
      let offset = 0;
      signal.addEventListener('abort', () => events.end(), { once: true });
      return {
        push: (frame) => { samples += frame.length; },
        endOfUtterance: () => {
          const ms = (samples / 16);
          events.push({ type: 'final', text: `heard ${ms} ms`, startMs: offset, endMs: offset + ms });
          offset += ms;
          samples = 0;
        },
        end: () => events.end(),
        [Symbol.asyncIterator]: () => events[Symbol.asyncIterator](),
      };
    },
  };
}
