/**
 * The engine's root export (engine/package.json `exports` "."): what the other workspaces use of it, and no more —
 * the roles `parley start` runs besides the control plane, and what a harness (the bench, the control plane's
 * tests) needs to run calls without a carrier. Everything else stays inside the engine, free to change.
 */
export type { EngineConfig, VadMode } from './engine-config.ts';
export type { RoleLog } from './role-log.ts';
export { EngineRole } from './engine-role.ts';
export { startEngineRole } from './start-engine-role.ts';
export { startLlmWorkerRole, startSttWorkerRole, startTtsWorkerRole, type WorkerRoleHandle } from './worker-roles.ts';
// The URL a carrier opens for a call's media (the control plane writes it into answer XML), and the carriers that
// have one.
export { mediaStreamUrl, webrtcSignallingUrl } from './media-endpoint.ts';
export type { MediaCarrier } from '../transports/carrier-ws/carrier-protocol.ts';
// Voice activity detection, as `parley start` loads it and the bench measures it.
export { loadVoiceActivity, type VoiceActivitySource } from './voice-activity.ts';
export { EnergyVad } from '../session/energy-vad.ts';
export { GatedSileroVad } from '../session/gated-silero-vad.ts';
export { SileroModel } from '../providers/silero/silero-model.ts';
// Running calls without a carrier: the in-memory transport, and workers built from providers of a harness's choosing.
export { memoryTransport } from '../transports/memory/memory-transport.ts';
export { startWorker, type WorkerHandle } from '../workers/worker-host.ts';
export { sttWorker } from '../workers/stt/stt-worker.ts';
export { llmWorker } from '../workers/llm/llm-worker.ts';
export { ttsWorker } from '../workers/tts/tts-worker.ts';
export type { SttProvider, SttStream, SttEvent } from '../providers/stt-provider.ts';
export type { LlmProvider, LlmEvent } from '../providers/llm-provider.ts';
export type { TtsProvider } from '../providers/tts-provider.ts';
