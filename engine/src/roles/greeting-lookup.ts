/**
 * The engine's side of the greeting cache (protocol/greeting-audio.ts): while the phone rings, ask the control plane
 * for this call's greeting as audio. Anything but a hit — a miss, no control plane answering in time, a malformed
 * reply — resolves undefined, and the greeting is synthesised now instead: the cache may only make a call faster.
 */
import { ENGINE_SAMPLE_RATE } from '../audio/format.ts';
import { resample } from '../audio/resampler.ts';
import type { Bus } from '../bus/index.ts';
import type { TtsClient } from '../workers/client/tts-client.ts';
import {
  decodeAudioFrame,
  greetingCodecs,
  GREETING_LOOKUP_TIMEOUT_MS,
  isAudioFrame,
  subjects,
  type CallSpec,
} from '../protocol/index.ts';

/** 100 ms pieces, as a TTS stream would hand them to the outbound queue. */
const PIECE_SAMPLES = ENGINE_SAMPLE_RATE / 10;

/** The cached audio of `text` for this call's agent, in 16 kHz pieces; undefined when there is none. */
export async function cachedGreeting(
  bus: Bus,
  agent: CallSpec['agent'],
  text: string,
  signal: AbortSignal,
): Promise<Int16Array[] | undefined> {
  if (agent.version === undefined || !text) return undefined;
  try {
    const reply = await bus.request(
      subjects.greetingAudio(),
      greetingCodecs.request.encode({
        agentId: agent.id,
        agentVersion: agent.version,
        text,
        voiceProvider: agent.voiceProvider ?? null,
        voiceId: agent.voiceId ?? null,
        voiceSpeed: agent.voiceSpeed ?? null,
      }),
      { timeoutMs: GREETING_LOOKUP_TIMEOUT_MS },
    );
    if (signal.aborted || !isAudioFrame(reply.data)) return undefined;
    const frame = decodeAudioFrame(reply.data);
    const samples =
      frame.sampleRate === ENGINE_SAMPLE_RATE
        ? frame.samples
        : resample(frame.samples, frame.sampleRate, ENGINE_SAMPLE_RATE);
    if (samples.length === 0) return undefined;
    const pieces: Int16Array[] = [];
    for (let offset = 0; offset < samples.length; offset += PIECE_SAMPLES)
      pieces.push(samples.subarray(offset, offset + PIECE_SAMPLES));
    return pieces;
  } catch {
    return undefined;
  }
}

/**
 * The greeting's audio for a call about to be answered: from the control plane's cache when it has this text
 * (`fromCache` is told), else synthesised now on the call's TTS stream.
 */
export async function greetingAudio(
  bus: Bus,
  agent: CallSpec['agent'],
  text: string,
  tts: TtsClient,
  signal: AbortSignal,
  fromCache: () => void,
): Promise<Int16Array[]> {
  const cached = await cachedGreeting(bus, agent, text, signal);
  if (cached) {
    fromCache();
    return cached;
  }
  const pieces: Int16Array[] = [];
  for await (const piece of tts.say(text, {}, signal)) pieces.push(piece);
  return pieces;
}
