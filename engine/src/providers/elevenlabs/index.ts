/** ElevenLabs streaming text-to-speech. */
export {
  ELEVENLABS_DEFAULT_MODEL,
  ELEVENLABS_DEFAULT_VOICE,
  ELEVENLABS_SAMPLE_RATE,
  ELEVENLABS_URL,
  ELEVENLABS_VOICES_TIMEOUT_MS,
  ElevenLabsTts,
  type ElevenLabsTtsConfig,
} from './elevenlabs-tts.ts';
