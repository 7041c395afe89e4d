/**
 * A TTS worker's answer to `v1.tts.voices` (protocol/tts-voices.ts): the voices of every provider it serves,
 * asked of each provider in parallel. It joins the `tts` queue group, so one worker answers each request; the
 * workers of one installation share their configuration, so whichever answers gives the same list.
 */
import type { Bus, BusMessage } from '../../bus/index.ts';
import {
  queues,
  subjects,
  ttsVoicesCodecs,
  TTS_VOICES_PROVIDER_DEADLINE_MS,
  type ListedVoice,
  type TtsVoicesReply,
} from '../../protocol/index.ts';
import { ProviderError } from '../../providers/provider-error.ts';
import type { TtsProvider, TtsVoice } from '../../providers/tts-provider.ts';
import { wireError } from '../provider-registry.ts';

export interface VoiceListingOptions {
  /** The worker this answers for (its heartbeat id), so a reply can be traced to a machine. */
  workerId: string;
  providers: readonly TtsProvider[];
  defaultProvider: string;
  log?: (event: string, detail?: object) => void;
}

export interface VoiceListingHandle {
  /** Stops answering; requests already being answered still get their reply. */
  stop(): Promise<void>;
}

export function answerVoiceListings(bus: Bus, options: VoiceListingOptions): VoiceListingHandle {
  const requests = bus.subscribe(subjects.ttsVoices(), { queue: queues.tts });
  const log = options.log ?? (() => {});
  void (async () => {
    // Each request is answered on its own: a slow vendor must not hold up the requests behind it.
    for await (const message of requests) {
      void answer(message, options, log).catch((error: unknown) => log('voice listing reply failed', { error }));
    }
  })();
  return {
    async stop() {
      await requests.drain().catch(() => requests.unsubscribe());
    },
  };
}

async function answer(
  message: BusMessage,
  options: VoiceListingOptions,
  log: NonNullable<VoiceListingOptions['log']>,
): Promise<void> {
  try {
    ttsVoicesCodecs.request.decode(message.data);
  } catch (error) {
    message.respond(ttsVoicesCodecs.reply.encode({ ok: false, ...wireError(error), retryable: false }));
    return;
  }
  const listed = await Promise.all(
    options.providers.map(async (provider) => {
      try {
        const voices = await withinDeadline(provider);
        return { provider: provider.name, voices };
      } catch (error) {
        log('voice listing failed', { provider: provider.name, error });
        return { provider: provider.name, failure: wireError(error) };
      }
    }),
  );
  const reply: TtsVoicesReply = {
    ok: true,
    workerId: options.workerId,
    defaultProvider: options.defaultProvider,
    providers: options.providers.map((p) => p.name),
    voices: [],
    failures: [],
  };
  for (const entry of listed) {
    if (entry.failure) reply.failures.push({ provider: entry.provider, ...entry.failure });
    else for (const voice of entry.voices ?? []) reply.voices.push(listedVoice(entry.provider, voice));
  }
  message.respond(ttsVoicesCodecs.reply.encode(reply));
}

/** Only the listed fields go on the wire: a provider's own bookkeeping (espeak's priorities) stays home. */
function listedVoice(provider: string, voice: TtsVoice): ListedVoice {
  const out: ListedVoice = { provider, id: voice.id, name: voice.name, language: voice.language };
  if (voice.gender !== undefined) out.gender = voice.gender;
  return out;
}

async function withinDeadline(provider: TtsProvider): Promise<TtsVoice[]> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ProviderError(
            'upstream_timeout',
            provider.name,
            `listing voices took longer than ${TTS_VOICES_PROVIDER_DEADLINE_MS} ms`,
          ),
        ),
      TTS_VOICES_PROVIDER_DEADLINE_MS,
    );
  });
  try {
    return await Promise.race([provider.voices(), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
