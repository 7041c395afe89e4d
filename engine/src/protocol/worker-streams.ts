/**
 * Messages of the worker streams (docs/architecture.md §4). A session opens a stream on a worker kind (`v1.<kind>.open`,
 * answered by one member of the kind's queue group), then talks to it on `v1.<kind>.<streamId>.in` / `.out`.
 * Audio travels as binary frames (audio-frame.ts) on the same subjects; everything else is JSON defined here.
 *
 * Liveness both ways: workers publish heartbeats (`v1.worker.<kind>.<workerId>.heartbeat`), so a session notices
 * a dead worker and reopens its stream elsewhere; sessions send `ping` on quiet streams, so a worker frees the
 * streams of a session that died.
 */
import { Type, type Static } from '@sinclair/typebox';
import { messageCodec } from './message-codec.ts';

/** How often a worker announces it is alive, in ms. */
export const WORKER_HEARTBEAT_INTERVAL_MS = 1_000;
/** A worker silent this long is taken for dead and its streams are reopened elsewhere, in ms. */
export const WORKER_DEAD_AFTER_MS = 3_500;
/** How often a session pings a stream that has no other traffic, in ms. */
export const STREAM_PING_INTERVAL_MS = 5_000;
/** A worker closes a stream that has heard nothing (audio, request or ping) this long, in ms. */
export const STREAM_IDLE_TIMEOUT_MS = 20_000;

const ErrorFields = {
  code: Type.String(),
  message: Type.String(),
  retryable: Type.Boolean(),
};

// ---- open (every kind) ---------------------------------------------------------------------------------------

export const SttOpenOptions = Type.Object({
  provider: Type.Optional(Type.String()),
  language: Type.String(),
  mode: Type.Optional(Type.String()),
  keywords: Type.Optional(Type.Array(Type.String())),
});
export const LlmOpenOptions = Type.Object({
  provider: Type.Optional(Type.String()),
  model: Type.Optional(Type.String()),
});
export const TtsOpenOptions = Type.Object({
  provider: Type.Optional(Type.String()),
  voiceId: Type.Optional(Type.String()),
  speed: Type.Optional(Type.Number()),
  language: Type.Optional(Type.String()),
});

export const OpenRequest = Type.Object({
  callId: Type.String(),
  options: Type.Union([SttOpenOptions, LlmOpenOptions, TtsOpenOptions]),
});
export type OpenRequest = Static<typeof OpenRequest>;

export const OpenReply = Type.Union([
  Type.Object({ ok: Type.Literal(true), streamId: Type.String(), workerId: Type.String() }),
  Type.Object({ ok: Type.Literal(false), ...ErrorFields }),
]);
export type OpenReply = Static<typeof OpenReply>;

// ---- STT ----------------------------------------------------------------------------------------------------

export const SttControl = Type.Union([
  Type.Object({ type: Type.Literal('end_of_utterance') }),
  Type.Object({ type: Type.Literal('end') }),
  Type.Object({ type: Type.Literal('ping') }),
]);
export type SttControl = Static<typeof SttControl>;

export const SttOut = Type.Union([
  Type.Object({ type: Type.Literal('partial'), text: Type.String() }),
  Type.Object({
    type: Type.Literal('final'),
    text: Type.String(),
    startMs: Type.Number(),
    endMs: Type.Number(),
    confidence: Type.Optional(Type.Number()),
  }),
  Type.Object({ type: Type.Literal('error'), ...ErrorFields }),
  Type.Object({ type: Type.Literal('ended') }),
]);
export type SttOut = Static<typeof SttOut>;

// ---- LLM ----------------------------------------------------------------------------------------------------

const ChatMessage = Type.Union([
  Type.Object({ role: Type.Literal('system'), content: Type.String() }),
  Type.Object({ role: Type.Literal('user'), content: Type.String() }),
  Type.Object({
    role: Type.Literal('assistant'),
    content: Type.String(),
    toolCalls: Type.Optional(
      Type.Array(Type.Object({ id: Type.String(), name: Type.String(), arguments: Type.String() })),
    ),
  }),
  Type.Object({ role: Type.Literal('tool'), toolCallId: Type.String(), content: Type.String() }),
]);

export const LlmTurnRequest = Type.Object({
  messages: Type.Array(ChatMessage),
  tools: Type.Optional(
    Type.Array(
      Type.Object({
        name: Type.String(),
        description: Type.String(),
        parameters: Type.Record(Type.String(), Type.Unknown()),
      }),
    ),
  ),
  model: Type.Optional(Type.String()),
  temperature: Type.Optional(Type.Number()),
  maxTokens: Type.Optional(Type.Integer()),
});

export const LlmIn = Type.Union([
  Type.Object({ type: Type.Literal('turn'), requestId: Type.Integer(), request: LlmTurnRequest }),
  Type.Object({ type: Type.Literal('cancel'), requestId: Type.Integer() }),
  Type.Object({ type: Type.Literal('end') }),
  Type.Object({ type: Type.Literal('ping') }),
]);
export type LlmIn = Static<typeof LlmIn>;

export const LlmOut = Type.Union([
  Type.Object({ type: Type.Literal('token'), requestId: Type.Integer(), text: Type.String() }),
  Type.Object({
    type: Type.Literal('tool_call'),
    requestId: Type.Integer(),
    call: Type.Object({ id: Type.String(), name: Type.String(), arguments: Type.String() }),
  }),
  Type.Object({
    type: Type.Literal('done'),
    requestId: Type.Integer(),
    finishReason: Type.Union([
      Type.Literal('stop'),
      Type.Literal('tool_calls'),
      Type.Literal('length'),
      Type.Literal('other'),
    ]),
    usage: Type.Optional(
      Type.Object({ promptTokens: Type.Number(), completionTokens: Type.Number(), totalTokens: Type.Number() }),
    ),
  }),
  Type.Object({ type: Type.Literal('error'), requestId: Type.Integer(), ...ErrorFields }),
  Type.Object({ type: Type.Literal('ended') }),
]);
export type LlmOut = Static<typeof LlmOut>;

// ---- TTS ----------------------------------------------------------------------------------------------------

export const TtsIn = Type.Union([
  Type.Object({
    type: Type.Literal('say'),
    requestId: Type.Integer(),
    text: Type.String(),
    voiceId: Type.Optional(Type.String()),
    speed: Type.Optional(Type.Number()),
    language: Type.Optional(Type.String()),
  }),
  Type.Object({ type: Type.Literal('cancel'), requestId: Type.Integer() }),
  Type.Object({ type: Type.Literal('end') }),
  Type.Object({ type: Type.Literal('ping') }),
]);
export type TtsIn = Static<typeof TtsIn>;

/** TTS audio arrives as binary frames whose request number is the `say` requestId; these close each request. */
export const TtsOut = Type.Union([
  Type.Object({ type: Type.Literal('done'), requestId: Type.Integer(), samples: Type.Integer() }),
  Type.Object({ type: Type.Literal('error'), requestId: Type.Integer(), ...ErrorFields }),
  Type.Object({ type: Type.Literal('ended') }),
]);
export type TtsOut = Static<typeof TtsOut>;

// ---- heartbeat ----------------------------------------------------------------------------------------------

export const WorkerHeartbeat = Type.Object({
  workerId: Type.String(),
  kind: Type.String(),
  /** Open streams on this worker. */
  streams: Type.Integer(),
  /** Providers this worker can serve, by name. */
  providers: Type.Array(Type.String()),
  /**
   * The worker is stopping (SIGTERM): each session moves its stream to another worker now, as when a worker dies,
   * but without waiting for the heartbeats to stop (docs/architecture.md §18). Absent from older workers.
   */
  draining: Type.Optional(Type.Boolean()),
  /**
   * The language models an llm worker runs, by model name (never its endpoint's key): how engines and control planes
   * learn that a language model is there without holding its settings (docs/architecture.md §2). Optional within v1:
   * absent from other kinds and from llm workers older than the field, which only ever ran with a model configured.
   */
  models: Type.Optional(Type.Array(Type.String())),
});
export type WorkerHeartbeat = Static<typeof WorkerHeartbeat>;

export const codecs = {
  openRequest: messageCodec(OpenRequest, 'open request'),
  openReply: messageCodec(OpenReply, 'open reply'),
  sttControl: messageCodec(SttControl, 'stt control'),
  sttOut: messageCodec(SttOut, 'stt output'),
  llmIn: messageCodec(LlmIn, 'llm input'),
  llmOut: messageCodec(LlmOut, 'llm output'),
  ttsIn: messageCodec(TtsIn, 'tts input'),
  ttsOut: messageCodec(TtsOut, 'tts output'),
  heartbeat: messageCodec(WorkerHeartbeat, 'worker heartbeat'),
} as const;
