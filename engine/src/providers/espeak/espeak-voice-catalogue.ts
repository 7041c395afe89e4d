/**
 * espeak-ng's voices as a provider serves them, whichever espeak-ng runs (Debian's binary, or the WASM build run as
 * a program of its own): the `--voices` and `--voices=variant` listings read once and kept (a failed read is tried
 * again next time), the table a request's voice is resolved against, and the list the voices API shows.
 */
import { ProviderError } from '../provider-error.ts';
import type { TtsVoice } from '../tts-provider.ts';
import { parseEspeakVariants, parseEspeakVoices, type EspeakVoiceTable } from './espeak-voices.ts';

/** What `espeak-ng --voices` (`'voices'`) or `--voices=variant` (`'variant'`) prints. */
export type EspeakListing = (which: 'voices' | 'variant') => Promise<string>;

export class EspeakVoiceCatalogue {
  readonly #provider: string;
  readonly #list: EspeakListing;
  #table: Promise<EspeakVoiceTable> | undefined;

  constructor(provider: string, list: EspeakListing) {
    this.#provider = provider;
    this.#list = list;
  }

  table(): Promise<EspeakVoiceTable> {
    this.#table ??= this.#read().catch((error: unknown) => {
      this.#table = undefined; // a failed listing is retried next time
      throw error;
    });
    return this.#table;
  }

  /** One voice per language row; variants (`+f3`) are accepted by requests but not listed. */
  async voices(): Promise<TtsVoice[]> {
    const table = await this.table();
    return table.voices.map(({ id, name, language, gender }) => ({
      id,
      name,
      language,
      ...(gender ? { gender } : {}),
    }));
  }

  async #read(): Promise<EspeakVoiceTable> {
    const [voices, variants] = await Promise.all([this.#list('voices'), this.#list('variant')]);
    const table = { voices: parseEspeakVoices(voices), variants: parseEspeakVariants(variants) };
    if (table.voices.length === 0)
      throw new ProviderError('provider_failed', this.#provider, 'espeak-ng --voices listed no voices');
    return table;
  }
}

/** Refuses a text longer than the provider takes in one request. */
export function assertTextFits(provider: string, text: string, maxChars: number): void {
  if (text.length > maxChars) {
    throw new ProviderError('invalid_request', provider, `text of ${text.length} characters exceeds ${maxChars}`);
  }
}
