/**
 * Local contract fakes of the cloud vendors (docs/architecture.md §7.8), for any test that needs an LLM, STT or TTS without
 * the network: each speaks the vendor's documented HTTP or websocket API on 127.0.0.1 and refuses what the vendor
 * refuses, so a client bug fails the test.
 */
export {
  startFakeDeepgram,
  type FakeDeepgram,
  type FakeDeepgramConnection,
  type FakeDeepgramOptions,
} from './fake-deepgram-server.ts';
export {
  FAKE_ELEVENLABS_VOICES,
  startFakeElevenLabs,
  type ElevenLabsScript,
  type FakeElevenLabs,
} from './fake-elevenlabs-server.ts';
export { speechMs, type SpeechScript, type TranscriptionScript } from './fake-openai-audio.ts';
export type { ChatScript, ScriptedToolCall } from './fake-openai-chat.ts';
export { startFakeOpenAi, type FakeOpenAi, type FakeOpenAiOptions } from './fake-openai-server.ts';
export { FAKE_EMBEDDING_DIMENSIONS, fakeEmbedding } from './fake-openai-embeddings.ts';
export { startFakeS3, type FakeS3, type FakeS3Object, type FakeS3Options, type FakeS3Request } from './s3/fake-s3.ts';
export { parseWav, rms, silence, tone, VOICED_RMS, type ParsedWav } from './pcm-audio.ts';
export * from './carrier-sim/index.ts';
export {
  connectWebRtcCaller,
  openSignalling,
  type SayHooks,
  type WebRtcCaller,
  type WebRtcCallerOptions,
} from './webrtc-caller.ts';
