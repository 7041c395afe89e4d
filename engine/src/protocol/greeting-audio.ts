/**
 * The greeting cache (`v1.greeting.audio`, request/reply, queue group `control-plane`). The control plane
 * synthesises each voice agent's greeting through the TTS workers when the agent is saved and keeps the audio per
 * (agent version, voice provider, voice, speed, text). While a call rings, the engine asks for the greeting it is
 * about to say — the text filled with this call's variables — and plays the cached audio at once when there is one.
 * A greeting whose placeholders this call fills differently has another text, misses, and is synthesised now.
 *
 * The reply is binary: one audio frame (audio-frame.ts) holding the whole greeting, or a JSON miss. Audio frames
 * start with a magic byte that JSON never does, so `isAudioFrame` tells them apart.
 */
import { Type, type Static } from '@sinclair/typebox';
import { messageCodec } from './message-codec.ts';

/** The longest greeting kept, ms: 20 s of 16 kHz PCM16 is 640 KB, inside NATS's default 1 MB message. */
export const GREETING_CACHE_MAX_MS = 20_000;
/** How long the engine waits for the cache before synthesising the greeting itself, ms. */
export const GREETING_LOOKUP_TIMEOUT_MS = 500;

const orNull = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Number>>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const GreetingAudioRequest = Type.Object({
  agentId: Type.String({ minLength: 1 }),
  agentVersion: Type.Integer({ minimum: 1 }),
  /** The greeting as this call will say it (placeholders filled). */
  text: Type.String(),
  voiceProvider: orNull(Type.String()),
  voiceId: orNull(Type.String()),
  voiceSpeed: orNull(Type.Number()),
});
export type GreetingAudioRequest = Static<typeof GreetingAudioRequest>;

/** The JSON reply when nothing matching is cached (never synthesised yet, an older version, or another text). */
export const GreetingAudioMiss = Type.Object({ found: Type.Literal(false) });
export type GreetingAudioMiss = Static<typeof GreetingAudioMiss>;

export const greetingCodecs = {
  request: messageCodec(GreetingAudioRequest, 'greeting audio request'),
  miss: messageCodec(GreetingAudioMiss, 'greeting audio miss'),
};
