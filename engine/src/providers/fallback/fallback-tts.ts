/**
 * A TtsProvider that synthesises with a primary voice and, when the primary fails before its first audio, with a
 * secondary. Voice ids belong to their provider (an ElevenLabs id means nothing to OpenAI), so the secondary gets
 * the voice `secondaryVoice` picks for the request, or its own default.
 */
import type { AudioChunk } from '../../audio/format.ts';
import type { TtsProvider, TtsRequest, TtsVoice } from '../tts-provider.ts';
import type { FallbackOptions } from './fallback-options.ts';

export interface FallbackTtsOptions extends FallbackOptions {
  /** The secondary's voice for a request (for example one of the same gender); undefined: the secondary's default. */
  secondaryVoice?: (request: TtsRequest) => string | undefined;
}

export class FallbackTts implements TtsProvider {
  readonly name: string;
  readonly #primary: TtsProvider;
  readonly #secondary: TtsProvider;
  readonly #options: FallbackTtsOptions;

  constructor(primary: TtsProvider, secondary: TtsProvider, options: FallbackTtsOptions = {}) {
    this.name = primary.name;
    this.#primary = primary;
    this.#secondary = secondary;
    this.#options = options;
  }

  synthesize(request: TtsRequest, signal: AbortSignal): AsyncIterable<AudioChunk> {
    return this.#synthesize(request, signal);
  }

  /** The primary's voices: agents are configured against it; the secondary only stands in. */
  voices(): Promise<TtsVoice[]> {
    return this.#primary.voices();
  }

  async *#synthesize(request: TtsRequest, signal: AbortSignal): AsyncGenerator<AudioChunk, void, undefined> {
    let produced = false;
    try {
      for await (const chunk of this.#primary.synthesize(request, signal)) {
        produced = true;
        yield chunk;
      }
      return;
    } catch (err) {
      if (produced || signal.aborted) throw err;
      this.#options.onFallback?.(err);
    }
    yield* this.#secondary.synthesize({ ...request, voiceId: this.#options.secondaryVoice?.(request) }, signal);
  }
}
