/**
 * Clients of the STT, LLM and TTS workers over the bus: what a call session uses, and what other roles use to reach
 * the same workers (the control plane's greeting synthesis and AI text enhancement) without their own providers.
 */
export { LlmClient } from './llm-client.ts';
export { SttClient } from './stt-client.ts';
export { TtsClient, type SayOptions } from './tts-client.ts';
export { WorkerStreamError } from './worker-stream.ts';
export type { ChatMessage, LlmEvent, LlmRequest } from '../../providers/llm-provider.ts';
export { WorkerPool, POOL_SETTLE_MS, type PoolWorker } from './worker-pool.ts';
