/** espeak-ng text to speech (22 050 Hz, ~130 languages). Errors are ProviderErrors (../provider-error.ts). */
export {
  createEspeakTts,
  ESPEAK_DEFAULT_VOICE,
  ESPEAK_MAX_TEXT_CHARS,
  ESPEAK_NORMAL_WPM,
  EspeakTtsProvider,
  type EspeakTtsOptions,
} from './espeak-tts.ts';
