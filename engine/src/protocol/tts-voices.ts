/**
 * The voice listing (`v1.tts.voices`, request/reply, queue group `tts`): which voices the TTS workers can speak
 * with, so the control plane can offer them (GET /voice/voices) without ever talking to a TTS vendor itself.
 *
 * One member of the queue group answers each request. Every TTS worker of an installation is started from the
 * same configuration (PARLEY_TTS and the vendor keys), so any one of them gives the installation's list; a worker
 * on a machine without flite or espeak-ng would leave those out, which is why operators install them everywhere.
 *
 * A provider whose listing fails (a vendor down, a wrong key) costs only its own voices: the reply carries the
 * others plus one `failures` entry per failed provider, so a caller can say what is missing and why.
 */
import { Type, type Static } from '@sinclair/typebox';
import { messageCodec } from './message-codec.ts';

/**
 * How long a worker waits for one provider's list, in ms. Local programs answer in milliseconds and vendors in a
 * few hundred; a vendor slower than this is reported as failed rather than holding up every other voice.
 */
export const TTS_VOICES_PROVIDER_DEADLINE_MS = 5_000;
/**
 * How long a requester waits for a worker's answer, in ms: the provider deadline plus room for the bus and the
 * worker's own scheduling, so a slow vendor yields a partial list rather than no answer.
 */
export const TTS_VOICES_TIMEOUT_MS = TTS_VOICES_PROVIDER_DEADLINE_MS + 2_000;

/** The same error fields as the worker streams' errors (worker-streams.ts). */
const ErrorFields = {
  code: Type.String(),
  message: Type.String(),
  retryable: Type.Boolean(),
};

/** Empty today. Fields added later must be optional: an older worker ignores what it does not know. */
export const TtsVoicesRequest = Type.Object({});
export type TtsVoicesRequest = Static<typeof TtsVoicesRequest>;

export const VoiceGender = Type.Union([Type.Literal('MALE'), Type.Literal('FEMALE'), Type.Literal('NEUTRAL')]);

export const ListedVoice = Type.Object({
  /** The provider that speaks with this voice, as an agent's `voiceProvider` names it: flite, espeak, openai, elevenlabs. */
  provider: Type.String(),
  /** What an agent's `voiceId` holds to use this voice. */
  id: Type.String(),
  name: Type.String(),
  /** BCP-47; `mul` (ISO 639 "multiple languages") for a voice that speaks every language its model supports. */
  language: Type.String(),
  /** Absent when the provider does not say. */
  gender: Type.Optional(VoiceGender),
});
export type ListedVoice = Static<typeof ListedVoice>;

export const TtsVoicesReply = Type.Union([
  Type.Object({
    ok: Type.Literal(true),
    workerId: Type.String(),
    /** The provider a stream gets when it names none (PARLEY_TTS, or the first installed offline one). */
    defaultProvider: Type.String(),
    /** Every provider the worker serves, in its configured order, whether or not its listing succeeded. */
    providers: Type.Array(Type.String()),
    voices: Type.Array(ListedVoice),
    /** Providers whose listing failed or ran past TTS_VOICES_PROVIDER_DEADLINE_MS; their voices are missing. */
    failures: Type.Array(Type.Object({ provider: Type.String(), ...ErrorFields })),
  }),
  Type.Object({ ok: Type.Literal(false), ...ErrorFields }),
]);
export type TtsVoicesReply = Static<typeof TtsVoicesReply>;

export const ttsVoicesCodecs = {
  request: messageCodec(TtsVoicesRequest, 'tts voices request'),
  reply: messageCodec(TtsVoicesReply, 'tts voices reply'),
} as const;
