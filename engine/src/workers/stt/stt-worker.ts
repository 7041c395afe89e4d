/**
 * The STT worker kind: each stream feeds a call's audio (16 kHz PCM16 frames) to an STT provider and publishes its
 * partial and final transcripts.
 */
import { ENGINE_SAMPLE_RATE } from '../../audio/format.ts';
import { codecs, decodeAudioFrame, isAudioFrame, type SttOpenOptions } from '../../protocol/index.ts';
import type { SttProvider } from '../../providers/stt-provider.ts';
import type { Static } from '@sinclair/typebox';
import { providerRegistry, wireError } from '../provider-registry.ts';
import type { StreamContext, StreamHandler, WorkerKindHandler } from '../worker-host.ts';

export function sttWorker(providers: readonly SttProvider[], defaultProvider?: string): WorkerKindHandler {
  const registry = providerRegistry(providers, defaultProvider);
  return {
    kind: 'stt',
    providers: registry.names,
    open(request, context) {
      const options = request.options as Static<typeof SttOpenOptions>;
      const provider = registry.pick(options.provider);
      return sttStream(provider, options, context);
    },
  };
}

function sttStream(
  provider: SttProvider,
  options: Static<typeof SttOpenOptions>,
  context: StreamContext,
): StreamHandler {
  const stream = provider.open(
    { language: options.language, mode: options.mode, keywords: options.keywords },
    context.signal,
  );
  let endRequested = false;
  void (async () => {
    try {
      for await (const event of stream) context.send(codecs.sttOut.encode(event));
      // Only the session ends a transcription; a worker going away says nothing, and the session moves elsewhere.
      if (endRequested) context.send(codecs.sttOut.encode({ type: 'ended' }));
    } catch (error) {
      if (!context.signal.aborted) context.send(codecs.sttOut.encode({ type: 'error', ...wireError(error) }));
    } finally {
      context.finish();
    }
  })();
  return {
    receive(payload) {
      if (isAudioFrame(payload)) {
        const frame = decodeAudioFrame(payload);
        if (frame.sampleRate !== ENGINE_SAMPLE_RATE)
          throw new Error(`stt audio must be ${ENGINE_SAMPLE_RATE} Hz, got ${frame.sampleRate}`);
        stream.push(frame.samples);
        return;
      }
      const control = codecs.sttControl.decode(payload);
      if (control.type === 'end_of_utterance') stream.endOfUtterance();
      else if (control.type === 'end') {
        endRequested = true;
        stream.end();
      }
    },
    close() {
      stream.end();
    },
  };
}
