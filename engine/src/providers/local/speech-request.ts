/**
 * Request checks the local speech programs share: the speed range of the TTS ones (flite, espeak-ng), and the
 * language a request asks for (those and pocketsphinx).
 */
import { ProviderError } from '../provider-error.ts';
import type { TtsRequest } from '../tts-provider.ts';

/** Slowest speed honoured: below half speed synthetic speech smears into something no caller wants. */
export const MIN_TTS_SPEED = 0.5;
/** Fastest speed honoured: above double speed flite and espeak-ng become hard to follow on a phone line. */
export const MAX_TTS_SPEED = 2;

/**
 * The request's speed as a factor, clamped to [MIN_TTS_SPEED, MAX_TTS_SPEED]; 1 when unset.
 * @param provider the provider's name, for the error
 * @throws ProviderError `invalid_request` for a speed that is not a positive number
 */
export function speedOf(provider: string, request: TtsRequest): number {
  const speed = request.speed ?? 1;
  if (!Number.isFinite(speed) || speed <= 0)
    throw new ProviderError('invalid_request', provider, `speed must be a positive number, got ${speed}`);
  return Math.min(MAX_TTS_SPEED, Math.max(MIN_TTS_SPEED, speed));
}

/** The primary language subtag of a BCP-47 tag, lower-cased: `en-US` → `en`. */
export function primaryLanguage(tag: string): string {
  return tag.split(/[-_]/)[0]!.toLowerCase();
}
