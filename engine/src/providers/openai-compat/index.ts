/**
 * OpenAI-compatible providers (LLM, STT, TTS) and the plumbing every cloud provider shares: the ProviderError
 * registry, the per-call clock, the bounded event queue and the streaming PCM16 reader.
 */
export {
  LLM_FIRST_TOKEN_TIMEOUT_MS,
  LLM_STALL_TIMEOUT_MS,
  LLM_TOTAL_TIMEOUT_MS,
  OpenAiCompatLlm,
  type OpenAiCompatLlmConfig,
} from './openai-llm.ts';
export {
  OpenAiCompatStt,
  STT_MAX_UTTERANCE_MS,
  STT_MIN_UTTERANCE_MS,
  STT_REQUEST_TIMEOUT_MS,
  type OpenAiCompatSttConfig,
} from './openai-stt.ts';
export {
  OPENAI_PCM_SAMPLE_RATE,
  OPENAI_VOICES,
  OpenAiCompatTts,
  TTS_FIRST_AUDIO_TIMEOUT_MS,
  TTS_STALL_TIMEOUT_MS,
  TTS_TOTAL_TIMEOUT_MS,
  type OpenAiCompatTtsConfig,
} from './openai-tts.ts';
export {
  isProviderError,
  PROVIDER_ERROR_CODES,
  ProviderError,
  type ProviderErrorCode,
} from './provider-error.ts';
export type { CallTimeouts } from './vendor-call.ts';
