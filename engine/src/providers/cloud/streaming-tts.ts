/**
 * What the cloud TTS vendors that stream headerless PCM16LE (OpenAI `pcm`, ElevenLabs `pcm_16000`) share: the
 * deadlines of one clause's synthesis, and the response body read as AudioChunks as it arrives, so the first audio
 * plays before the clause is fully spoken.
 */
import type { AudioChunk } from '../../audio/format.ts';
import { Pcm16Reader } from '../pcm16-reader.ts';
import { ProviderError } from '../provider-error.ts';
import type { CallTimeouts, VendorCall } from './vendor-call.ts';

/** From request to the first audio, in ms: one clause's audio normally starts within ~0.5 s. */
export const TTS_FIRST_AUDIO_TIMEOUT_MS = 5_000;
/** Longest gap between audio chunks once they flow, in ms, before the playback would run dry. */
export const TTS_STALL_TIMEOUT_MS = 5_000;
/** One clause's synthesis, in ms: a clause is at most a few sentences. */
export const TTS_TOTAL_TIMEOUT_MS = 30_000;

/** The TTS_* deadlines, but for those a provider's configuration overrides. */
export function ttsCallTimeouts(overrides: Partial<CallTimeouts> = {}): CallTimeouts {
  return {
    firstOutputMs: overrides.firstOutputMs ?? TTS_FIRST_AUDIO_TIMEOUT_MS,
    stallMs: overrides.stallMs ?? TTS_STALL_TIMEOUT_MS,
    totalMs: overrides.totalMs ?? TTS_TOTAL_TIMEOUT_MS,
  };
}

/**
 * A raw PCM16LE response body as AudioChunks, as it arrives.
 * @throws ProviderError `bad_response` for a body that is not PCM or is empty, `upstream_failed` for one that ends
 *   mid-sample
 */
export async function* pcmChunks(
  response: Response,
  call: VendorCall,
  sampleRate: number,
  provider: string,
): AsyncGenerator<AudioChunk, void, undefined> {
  // A server that ignored the requested format answers with JSON or text: played as PCM, that is loud noise.
  const type = response.headers.get('content-type') ?? '';
  if (/^\s*(application\/json|text\/)/i.test(type)) {
    await response.body?.cancel().catch(() => undefined);
    throw new ProviderError('bad_response', provider, `expected raw PCM, got ${type}`);
  }
  const pcm = new Pcm16Reader();
  let total = 0;
  for await (const bytes of call.chunks(response)) {
    const samples = pcm.push(bytes);
    if (samples.length === 0) continue;
    total += samples.length;
    call.output();
    yield { samples, sampleRate };
  }
  if (call.callerAborted) return;
  if (pcm.pendingByte)
    throw new ProviderError('upstream_failed', provider, 'the audio ended in the middle of a sample');
  if (total === 0) throw new ProviderError('bad_response', provider, 'the answer held no audio');
}
