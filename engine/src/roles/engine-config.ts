import type { S3BucketConfig } from '../storage/s3-config.ts';
import type { WorkerHealthConfig } from './worker-health-server.ts';

/** PARLEY_VAD: Silero behind the energy gate when its model loads (auto), always (silero), or never (energy). */
export type VadMode = 'auto' | 'silero' | 'energy';

/**
 * What the engine's roles need to know, as the `parley` command reads it from the environment (docs/architecture.md §2).
 * The engine never reads the environment itself.
 */
export interface EngineConfig {
  /**
   * OpenAI-compatible LLM, for the llm-worker role alone: engines learn from its heartbeats that a model is there and
   * never read this (docs/architecture.md §2). With no llm worker running one, PROMPT agents greet, then say so.
   */
  llm?: { baseUrl: string; apiKey?: string; model: string };
  /** Default STT provider: pocketsphinx (offline), deepgram or openai. */
  sttProvider: string;
  /** Default TTS provider: flite (offline), espeak (offline), openai or elevenlabs. */
  ttsProvider: string;
  /** Vendor endpoints (tests point these at local fakes) and keys. */
  sttBaseUrl?: string;
  ttsBaseUrl?: string;
  deepgramApiKey?: string;
  elevenlabsApiKey?: string;
  openaiApiKey?: string;
  /** Voice activity detection; default auto. */
  vad?: VadMode;
  /** Where the Silero model is; default engine/models/silero_vad_v5.onnx (installed by npm ci). */
  vadModelPath?: string;
  /** Where calls are recorded (stereo Ogg Opus, `<organisationId>/<callId>.ogg`); unset: calls are not recorded. */
  recordingsDir?: string;
  /**
   * PARLEY_RECORDINGS_BUCKET and PARLEY_S3_* (storage/s3-config.ts reads them): finished recordings are uploaded
   * there as `<prefix>/<organisationId>/<callId>.ogg` and their local file removed. They are still written to
   * `recordingsDir` while the call runs (so without it nothing is recorded), and stay there when uploads fail.
   */
  recordingsBucket?: S3BucketConfig;
  /** The media websocket server carriers stream calls to; absent: the engine role runs none (tests, the bench). */
  media?: EngineMediaConfig;
  /**
   * PARLEY_METRICS_TOKEN: the bearer token every /metrics of the process asks for; unset: /metrics is open
   * (docs/architecture.md §19).
   */
  metricsToken?: string;
  /** WORKER_HEALTH_PORT: the worker roles' /healthz and /metrics (roles/worker-health-server.ts); unset: none. */
  workerHealth?: WorkerHealthConfig;
}

/** The engine's media server (docs/architecture.md §2: ENGINE_PORT, PARLEY_MEDIA_URL). */
export interface EngineMediaConfig {
  /** ENGINE_PORT: where it listens; 0 picks a free port. */
  port: number;
  /** Address it binds; every interface by default (carriers connect from outside). */
  host?: string;
  /** PARLEY_MEDIA_URL: the base URL carriers reach it at (`wss://media.example.com`); default `ws://127.0.0.1:<port>`. */
  publicUrl?: string;
  /**
   * Key of the stream tokens' HMAC, base64, at least 16 bytes; a random one per process by default (tokens are
   * only ever checked by the engine that issued them, so nothing needs to share it).
   */
  tokenSecret?: string;
  /**
   * PARLEY_WEBRTC_HOSTS: addresses offered to browsers as ICE host candidates besides the machine's interfaces (the
   * public address of a host behind NAT, a Docker host's address); loopback (DEFAULT_WEBRTC_EXTRA_HOSTS) by default.
   */
  webrtcHosts?: string[];
}
