/**
 * Text to speech. One request per clause: the agent's reply is cut into clauses as the LLM streams, and each is
 * synthesised as soon as it is complete, so the first audio plays while later clauses are still being written.
 */
import type { AudioChunk } from '../audio/format.ts';

export interface TtsRequest {
  text: string;
  /** Provider voice id; undefined picks the provider's default for the language. */
  voiceId?: string;
  /** 1 is normal; 0.5 to 2 is the useful range. */
  speed?: number;
  /** BCP-47. */
  language?: string;
}

export interface TtsVoice {
  id: string;
  name: string;
  language: string;
  gender?: 'MALE' | 'FEMALE' | 'NEUTRAL';
}

export interface TtsProvider {
  /** Identifier as configured: flite, espeak, openai, elevenlabs. */
  readonly name: string;
  /**
   * Audio for one clause as it is produced, PCM16 mono at the provider's rate (the caller resamples). Aborting
   * `signal` stops synthesis and ends the iterable promptly; failures reject the iteration.
   */
  synthesize(request: TtsRequest, signal: AbortSignal): AsyncIterable<AudioChunk>;
  /** Voices this provider offers. */
  voices(): Promise<TtsVoice[]>;
  /** Stops what the provider keeps running between requests (espeak-wasm's program), when its worker stops. */
  close?(): Promise<void>;
}
