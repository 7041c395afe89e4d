/** Deepgram live streaming speech-to-text. */
export {
  DEEPGRAM_CLOSE_TIMEOUT_MS,
  DEEPGRAM_CONNECT_TIMEOUT_MS,
  DEEPGRAM_KEEPALIVE_MS,
  DEEPGRAM_URL,
  DeepgramStt,
  type DeepgramSttConfig,
} from './deepgram-stt.ts';
