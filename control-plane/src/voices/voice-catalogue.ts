/**
 * The installation's text-to-speech voices, as the TTS workers report them over the bus (`v1.tts.voices`): the
 * control plane never talks to a TTS vendor itself. The list is cached briefly, and concurrent requests share
 * one question to the workers.
 */
import type { Bus } from '@parley/engine/bus';
import { isBusError } from '@parley/engine/bus';
import { subjects, ttsVoicesCodecs, TTS_VOICES_TIMEOUT_MS, type TtsVoicesReply } from '@parley/engine/protocol';
import { ApiError } from '../errors.ts';
import type { VoicesData, VoicesQuery } from './types.ts';

/** How long a complete list is served from memory, in ms: voices change when an operator reconfigures, not per call. */
export const VOICES_CACHE_TTL_MS = 60_000;
/** How long a list missing a failed provider is served, in ms: short, so a vendor that recovers is back soon. */
export const PARTIAL_VOICES_CACHE_TTL_MS = 10_000;

type Listing = Extract<TtsVoicesReply, { ok: true }>;

export class VoiceCatalogue {
  readonly #bus: Bus;
  #cached: { listing: Listing; expiresAt: number } | undefined;
  #pending: Promise<Listing> | undefined;

  constructor(bus: Bus) {
    this.#bus = bus;
  }

  async list(query: VoicesQuery): Promise<VoicesData> {
    const listing = await this.#listing();
    const voices = ordered(listing).filter(
      (voice) =>
        (query.provider === undefined || voice.provider === query.provider) &&
        (query.language === undefined || speaks(voice.language, query.language)) &&
        (query.gender === undefined || voice.gender === query.gender),
    );
    const failed = new Map(listing.failures.map((f) => [f.provider, f.message]));
    return {
      voices,
      total: voices.length,
      providers: listing.providers.map((name) => {
        const message = failed.get(name);
        return {
          name,
          default: name === listing.defaultProvider,
          available: message === undefined,
          ...(message === undefined ? {} : { message }),
        };
      }),
    };
  }

  #listing(): Promise<Listing> {
    if (this.#cached && this.#cached.expiresAt > Date.now()) return Promise.resolve(this.#cached.listing);
    this.#pending ??= this.#ask()
      .then((listing) => {
        const ttl = listing.failures.length === 0 ? VOICES_CACHE_TTL_MS : PARTIAL_VOICES_CACHE_TTL_MS;
        this.#cached = { listing, expiresAt: Date.now() + ttl };
        return listing;
      })
      .finally(() => {
        this.#pending = undefined;
      });
    return this.#pending;
  }

  async #ask(): Promise<Listing> {
    let reply: TtsVoicesReply;
    try {
      const message = await this.#bus.request(subjects.ttsVoices(), ttsVoicesCodecs.request.encode({}), {
        timeoutMs: TTS_VOICES_TIMEOUT_MS,
      });
      reply = ttsVoicesCodecs.reply.decode(message.data);
    } catch (error) {
      if (isBusError(error)) {
        throw new ApiError(
          'unavailable',
          `No text-to-speech worker answered within ${TTS_VOICES_TIMEOUT_MS / 1000} s: voices cannot be listed until a tts-worker role is running`,
          { cause: error },
        );
      }
      throw new ApiError(
        'upstream_failed',
        'The text-to-speech worker gave an answer this server cannot read (are both on the same Parley version?)',
        { cause: error },
      );
    }
    if (!reply.ok)
      throw new ApiError('upstream_failed', `The text-to-speech worker refused to list voices: ${reply.message}`);
    return reply;
  }
}

/** The default provider's voices first; the workers' order otherwise (the configured order of providers). */
function ordered(listing: Listing): Listing['voices'] {
  const isDefault = (provider: string) => (provider === listing.defaultProvider ? 0 : 1);
  return listing.voices
    .map((voice, index) => ({ voice, index }))
    .sort((a, b) => isDefault(a.voice.provider) - isDefault(b.voice.provider) || a.index - b.index)
    .map(({ voice }) => voice);
}

/**
 * Whether a voice tagged `voiceTag` speaks `wanted`: the same tag, one a subtag-wise prefix of the other (`en`
 * and `en-US`, either way round), or a multilingual voice (`mul`). Case-insensitive, as BCP-47 tags are.
 */
export function speaks(voiceTag: string, wanted: string): boolean {
  const voice = voiceTag.toLowerCase();
  const tag = wanted.toLowerCase();
  return voice === 'mul' || voice === tag || voice.startsWith(`${tag}-`) || tag.startsWith(`${voice}-`);
}
