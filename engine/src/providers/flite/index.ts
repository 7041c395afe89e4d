/**
 * flite text to speech, and what the offline speech providers (flite, espeak, pocketsphinx) share: their error
 * registry and the local-program runner.
 */
export { createFliteTts, FLITE_DEFAULT_VOICE, FLITE_MAX_TEXT_CHARS, FliteTtsProvider, parseFliteVoices, type FliteTtsOptions } from './flite-tts.ts';
export {
  isSpeechProviderError,
  SPEECH_PROVIDER_ERROR_CODES,
  SpeechProviderError,
  type SpeechProviderErrorCode,
} from './speech-provider-error.ts';
export { MAX_TTS_SPEED, MIN_TTS_SPEED } from './tts-request.ts';
