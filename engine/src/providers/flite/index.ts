/** flite text to speech (US English, offline). What the local-program providers share is in ../local/. */
export {
  createFliteTts,
  FLITE_DEFAULT_VOICE,
  FLITE_MAX_TEXT_CHARS,
  FliteTtsProvider,
  parseFliteVoices,
  type FliteTtsOptions,
} from './flite-tts.ts';
