/** Primary-then-secondary adapters for each provider interface. */
export { FallbackLlm } from './fallback-llm.ts';
export type { FallbackOptions } from './fallback-options.ts';
export { FALLBACK_STT_REPLAY_MS, FallbackStt } from './fallback-stt.ts';
export { FallbackTts, type FallbackTtsOptions } from './fallback-tts.ts';
