/** The engine's roles (engine/package.json `exports` "."): what `parley start` runs besides the control plane. */
export type { EngineConfig, EngineMediaConfig, VadMode } from './engine-config.ts';
export type { RoleLog } from './role-log.ts';
export { EngineRole, MEDIA_CONNECT_TIMEOUT_MS, type EngineRoleOptions } from './engine-role.ts';
export { startEngineRole } from './start-engine-role.ts';
export { StreamTokenError, type StreamClaim } from './stream-claim.ts';
// Carrier media streams: the URL a carrier opens for a call (the control plane writes it into answer XML), the
// carriers that have one, and the media endpoint for harnesses that build an EngineRole themselves.
export {
  MEDIA_PATH_PREFIX,
  mediaStreamUrl,
  startMediaEndpoint,
  type MediaEndpointOptions,
  type StreamClaimer,
} from './media-endpoint.ts';
export { StreamTokens, type StreamTokenRefusal } from './stream-tokens.ts';
export { MEDIA_CARRIERS, type MediaCarrier } from '../transports/carrier-ws/carrier-protocol.ts';
export { CLOSE_CODES as MEDIA_CLOSE_CODES, type MediaServer } from '../transports/media-server/media-server.ts';
export { startLlmWorkerRole, startSttWorkerRole, startTtsWorkerRole, type WorkerRoleHandle } from './worker-roles.ts';
export { ProviderConfigError } from './provider-factory.ts';
// What a harness needs to run calls without a carrier (the bench, other workspaces' tests): the in-memory
// transport, and workers built from providers of its own choosing.
export { memoryTransport, type MemoryCaller } from '../transports/memory/memory-transport.ts';
export type { MediaTransport, TransportEvent } from '../transports/media-transport.ts';
export { startWorker, type WorkerHandle, type WorkerKindHandler } from '../workers/worker-host.ts';
export { sttWorker } from '../workers/stt/stt-worker.ts';
export { llmWorker } from '../workers/llm/llm-worker.ts';
export { ttsWorker } from '../workers/tts/tts-worker.ts';
export type { SttProvider, SttStream, SttEvent, SttOptions } from '../providers/stt-provider.ts';
export type { LlmProvider, LlmEvent, LlmRequest, ChatMessage } from '../providers/llm-provider.ts';
export type { TtsProvider, TtsRequest, TtsVoice } from '../providers/tts-provider.ts';
export type { CallSummary } from '../session/call-session.ts';
export { EnergyVad, frameDbfs, type FrameClassifier, type VadDecision } from '../session/energy-vad.ts';
export { GatedSileroVad } from '../session/gated-silero-vad.ts';
export { SileroModel } from '../providers/silero/silero-model.ts';
export { loadVoiceActivity, type VoiceActivitySource } from './voice-activity.ts';
