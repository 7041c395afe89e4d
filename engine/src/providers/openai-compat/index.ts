/**
 * OpenAI-compatible providers (LLM, STT, TTS). What every cloud provider shares (the per-call clock, the bounded
 * event queue, the streamed-PCM reader) is in ../cloud/; their errors are ../provider-error.ts.
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
export { OPENAI_PCM_SAMPLE_RATE, OPENAI_VOICES, OpenAiCompatTts, type OpenAiCompatTtsConfig } from './openai-tts.ts';
