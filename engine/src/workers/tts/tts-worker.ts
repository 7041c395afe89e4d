/**
 * The TTS worker kind: each stream synthesises a call's clauses one `say` at a time, converting the provider's
 * audio to the engine's 16 kHz as it streams, so the session only paces and plays. A `cancel` (barge-in) stops
 * that request at once.
 */
import type { Static } from '@sinclair/typebox';
import { ENGINE_SAMPLE_RATE } from '../../audio/format.ts';
import { Resampler } from '../../audio/resampler.ts';
import { codecs, encodeAudioFrame, type TtsOpenOptions } from '../../protocol/index.ts';
import type { TtsProvider, TtsRequest } from '../../providers/tts-provider.ts';
import { providerRegistry, wireError } from '../provider-registry.ts';
import { RequestRunner } from '../request-runner.ts';
import type { StreamContext, StreamHandler, WorkerKindHandler } from '../worker-host.ts';

/** Largest audio message, in samples (100 ms at 16 kHz): small enough that the first audio leaves early. */
const MAX_CHUNK_SAMPLES = 1_600;

export function ttsWorker(providers: readonly TtsProvider[], defaultProvider?: string): WorkerKindHandler {
  const registry = providerRegistry(providers, defaultProvider);
  return {
    kind: 'tts',
    providers: registry.names,
    open(request, context) {
      const options = request.options as Static<typeof TtsOpenOptions>;
      return ttsStream(registry.pick(options.provider), options, context);
    },
  };
}

function ttsStream(
  provider: TtsProvider,
  defaults: Static<typeof TtsOpenOptions>,
  context: StreamContext,
): StreamHandler {
  const requests = new RequestRunner(context);
  let sequence = 0;

  const send = (requestId: number, samples: Int16Array) => {
    for (let at = 0; at < samples.length; at += MAX_CHUNK_SAMPLES) {
      const piece = samples.subarray(at, Math.min(at + MAX_CHUNK_SAMPLES, samples.length));
      context.send(
        encodeAudioFrame({
          sampleRate: ENGINE_SAMPLE_RATE,
          requestNumber: requestId,
          sequence: sequence++,
          samples: piece,
        }),
      );
    }
  };

  const say = (requestId: number, request: TtsRequest) =>
    requests.run(
      requestId,
      async (signal) => {
        let resampler: Resampler | undefined;
        let total = 0;
        for await (const chunk of provider.synthesize(request, signal)) {
          if (signal.aborted) return;
          resampler ??= new Resampler(chunk.sampleRate, ENGINE_SAMPLE_RATE);
          const out = resampler.push(chunk.samples);
          total += out.length;
          send(requestId, out);
        }
        if (signal.aborted) return;
        if (resampler) {
          const tail = resampler.flush();
          total += tail.length;
          send(requestId, tail);
        }
        context.send(codecs.ttsOut.encode({ type: 'done', requestId, samples: total }));
      },
      (error) => context.send(codecs.ttsOut.encode({ type: 'error', requestId, ...wireError(error) })),
    );

  return {
    receive(payload) {
      const message = codecs.ttsIn.decode(payload);
      switch (message.type) {
        case 'say':
          say(message.requestId, {
            text: message.text,
            voiceId: message.voiceId ?? defaults.voiceId,
            speed: message.speed ?? defaults.speed,
            language: message.language ?? defaults.language,
          });
          break;
        case 'cancel':
          requests.cancel(message.requestId);
          break;
        case 'end':
          context.send(codecs.ttsOut.encode({ type: 'ended' }));
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
